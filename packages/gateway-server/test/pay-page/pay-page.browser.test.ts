// The wallet page in headless Chromium against a real gateway on anvil: an injected EIP-1193 wallet
// (keys in Node) connects, switches chains, signs EIP-3009 typed data, and the page pays through
// /receive and shows the receipt. Skipped only when no Chromium exists and CI is not set; under CI a
// missing browser fails the run. Screenshots go to test-artifacts/pay-page/.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { LocalAccount } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway';
import { fundedPayer, payableRef, startPaymentStack, transfersTo, type PaymentStack } from '../helpers/payments';
import { artifactPath, findChromium, installTestWallet, launchChromium, runningInCi, watchPageProblems, type TestWallet, type TestWalletBehaviour } from './browser';
import { TestWallClock } from '../helpers/clock';

const chromiumPath = findChromium();
const skip = chromiumPath === undefined && !runningInCi();
if (skip) console.warn('pay page browser tests SKIPPED: no Chromium (TOLLGATE_CHROMIUM, /usr/lib/chromium/chromium, /usr/bin/chromium); apt-get install -y chromium.');

const noWallet = 'No wallet was found in this browser. Install a browser wallet, or open this page in the browser of your wallet app, then reload the page.';

describe.skipIf(skip)('GET /pay/:refId in headless Chromium', () => {
  let stack: PaymentStack;
  let gateway: TestGateway;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    if (chromiumPath === undefined) {
      throw new Error('CI is set but no Chromium was found (/usr/lib/chromium/chromium, /usr/bin/chromium or TOLLGATE_CHROMIUM): install it with apt-get install -y chromium.');
    }
    browser = await launchChromium(chromiumPath);
    stack = await startPaymentStack();
    gateway = await startTestGateway({ ...stack.gatewayEnv, GATEWAY_SIGNING_KEY: generatePrivateKey() }, { clock: new TestWallClock() });
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await stack?.stop();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });

  interface Opened {
    page: Page;
    wallet: TestWallet | undefined;
    status: number;
    headers: Record<string, string>;
    problems: Awaited<ReturnType<typeof watchPageProblems>>;
  }

  /** Opens `/pay/<refId>` in a fresh context, with the test wallet of `payer` unless `payer` is undefined. */
  async function open(
    refId: string,
    payer: LocalAccount | undefined,
    behaviour: Partial<TestWalletBehaviour> = {},
    viewport = { width: 1000, height: 900 },
    base = gateway.url,
    deviceTimeMs?: number,
  ): Promise<Opened> {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    // A device clock that is off: time runs from deviceTimeMs in the page, timers included.
    if (deviceTimeMs !== undefined) await context.clock.install({ time: deviceTimeMs });
    const page = await context.newPage();
    const problems = await watchPageProblems(page);
    const local = stack.setup.chainId;
    const wallet = payer === undefined ? undefined : await installTestWallet(page, payer, { chainId: local, knownChains: [local], ...behaviour });
    const response = await page.goto(`${base}/pay/${refId}`);
    if (response === null) throw new Error('no response');
    return { page, wallet, status: response.status(), headers: await response.allHeaders(), problems };
  }

  const text = (page: Page, selector: string) => page.locator(selector).innerText();
  const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');
  const receiptValue = (page: Page, term: string) => page.locator('#receipt-facts > div', { has: page.locator('dt', { hasText: term }) }).locator('dd').innerText();

  async function expectCleanPage(opened: Opened): Promise<void> {
    expect(opened.problems.errors).toEqual([]);
    expect(await opened.problems.violations()).toEqual([]);
  }

  it('pays a fixed ref end to end and shows the receipt with its transaction', async () => {
    const payer = await fundedPayer(stack, 1_000_000n);
    const description = 'Pro plan <img src=x onerror="document.title=1">\nOne year & counting';
    const ref = await payableRef(gateway, { amount: '250000', extra: { description, invoiceId: 'INV-PAGE-1' } });
    const opened = await open(ref.refId, payer);
    const { page } = opened;
    expect(opened.status).toBe(200);
    expect(opened.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff' });
    expect(opened.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(await page.title()).toBe('Pay 0.25 USDC');
    expect(await text(page, 'h1')).toBe('Pay 0.25 USDC');
    // Merchant text is text: shown verbatim, no element made from it.
    expect(await page.locator('.description').textContent()).toBe(description);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await text(page, 'main > dl')).toContain(ref.merchant.payTo);
    expect(await text(page, 'main > dl')).toContain('Local test chain (chain id 31337)');

    await page.getByRole('button', { name: 'Connect wallet' }).click();
    await expect.poll(() => text(page, '#account')).toBe(`Paying from ${payer.address}`);
    await page.getByRole('button', { name: 'Pay 0.25 USDC' }).click();
    await page.locator('#receipt').waitFor({ state: 'visible', timeout: 30_000 });

    const [transfer, ...others] = await transfersTo(stack, ref.merchant.payTo);
    expect(others).toEqual([]);
    expect(transfer).toMatchObject({ from: payer.address, value: 250_000n });
    expect(await receiptValue(page, 'Transaction')).toBe(transfer!.transactionHash);
    expect(await receiptValue(page, 'Amount')).toBe('0.25 USDC');
    expect(await receiptValue(page, 'Paid from')).toBe(payer.address);
    expect(await receiptValue(page, 'Invoice')).toBe('INV-PAGE-1');
    expect(await focusedId(page)).toBe('receipt-title');
    expect(await text(page, '#status')).toBe('Payment complete.');
    expect(await text(page, '#problem')).toBe('');
    // The verify link is this gateway's public /tx route, which finds the transfer.
    const href = await page.locator('#verify-link').getAttribute('href');
    expect(new URL(href!, page.url()).toString()).toBe(`${gateway.url}/tx/${transfer!.transactionHash}`);
    const status = await call(gateway.url, 'GET', `/tx/${transfer!.transactionHash}`);
    expect(status.status).toBe(200);
    expect(status.body['found']).toBe(true);
    expect(await page.locator('#signed-receipt').textContent()).toContain(transfer!.transactionHash);
    // What the wallet was asked to sign: USDC's EIP-3009 authorization on the local chain.
    expect(opened.wallet!.signed).toHaveLength(1);
    expect(opened.wallet!.signed[0]).toMatchObject({
      primaryType: 'TransferWithAuthorization',
      domain: { chainId: stack.setup.chainId, verifyingContract: stack.setup.usdc.address },
      message: { from: payer.address, to: ref.merchant.payTo, value: '250000' },
    });
    await page.screenshot({ path: artifactPath('fixed-ref-receipt.png'), fullPage: true });
    await expectCleanPage(opened);
  });

  it('pays from a device whose clock runs 15 minutes ahead: it signs by the payment service\'s time', async () => {
    const payer = await fundedPayer(stack, 1_000_000n);
    const ref = await payableRef(gateway);
    const opened = await open(ref.refId, payer, {}, undefined, gateway.url, Date.now() + 15 * 60_000);
    expect(await opened.page.evaluate(() => Date.now())).toBeGreaterThan(Date.now() + 14 * 60_000);
    await opened.page.getByRole('button', { name: 'Pay 0.01 USDC' }).click();
    await opened.page.locator('#receipt').waitFor({ state: 'visible', timeout: 30_000 });
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
    const validBefore = Number(opened.wallet!.signed[0]!.message["validBefore"]);
    // The Date header of the 402 (the server's wall clock) plus maxTimeoutSeconds: the device's 15 minutes ahead played no part.
    expect(validBefore * 1000).toBeLessThanOrEqual(Date.now() + 300_000);
    await expectCleanPage(opened);
  });

  it('works with the keyboard alone: open amount, its validation, connect and pay with Tab and Enter', async () => {
    const payer = await fundedPayer(stack, 5_000_000n);
    const ref = await payableRef(gateway, { amount: undefined });
    const opened = await open(ref.refId, payer);
    const { page } = opened;
    const keyboard = page.keyboard;
    expect(await text(page, 'h1')).toBe('Pay in USDC');
    expect(await page.getByLabel('Amount in USDC').getAttribute('id')).toBe('amount');

    await keyboard.press('Tab');
    expect(await focusedId(page)).toBe('amount');
    await keyboard.type('1.2345678');
    await keyboard.press('Enter');
    await expect.poll(() => text(page, '#amount-error')).toBe('USDC has 6 decimal places: enter at most 6 digits after the dot.');
    expect(await page.locator('#amount').getAttribute('aria-invalid')).toBe('true');
    expect(await focusedId(page)).toBe('amount');
    expect(opened.wallet!.requests).toEqual([]);
    await page.screenshot({ path: artifactPath('open-ref-invalid-amount.png'), fullPage: true });

    await keyboard.press('ControlOrMeta+A');
    await keyboard.type('1.5');
    expect(await page.locator('#amount').getAttribute('aria-invalid')).toBe('false');
    expect(await text(page, '#pay-button')).toBe('Pay 1.50 USDC');
    await keyboard.press('Tab');
    expect(await focusedId(page)).toBe('connect');
    await keyboard.press('Enter');
    await expect.poll(() => text(page, '#account')).toBe(`Paying from ${payer.address}`);
    await keyboard.press('Tab');
    expect(await focusedId(page)).toBe('pay-button');
    await keyboard.press('Enter');
    await page.locator('#receipt').waitFor({ state: 'visible', timeout: 30_000 });
    expect(await focusedId(page)).toBe('receipt-title');
    expect(await receiptValue(page, 'Amount')).toBe('1.50 USDC');
    expect(await transfersTo(stack, ref.merchant.payTo)).toEqual([expect.objectContaining({ from: payer.address, value: 1_500_000n })]);
    await page.screenshot({ path: artifactPath('open-ref-keyboard-receipt.png'), fullPage: true });
    await expectCleanPage(opened);
  });

  it('asks a wallet on another chain to switch, then pays', async () => {
    const payer = await fundedPayer(stack, 1_000_000n);
    const ref = await payableRef(gateway);
    const opened = await open(ref.refId, payer, { chainId: 1, knownChains: [1, stack.setup.chainId] });
    await opened.page.getByRole('button', { name: 'Pay 0.01 USDC' }).click();
    await opened.page.locator('#receipt').waitFor({ state: 'visible', timeout: 30_000 });
    const methods = opened.wallet!.requests.map((request) => request.method);
    expect(methods).toEqual(['eth_requestAccounts', 'eth_chainId', 'wallet_switchEthereumChain', 'eth_chainId', 'eth_signTypedData_v4']);
    expect(opened.wallet!.requests[2]!.params).toEqual([{ chainId: `0x${stack.setup.chainId.toString(16)}` }]);
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
    await expectCleanPage(opened);
  });

  it('explains a declined switch and a chain the wallet does not know, and signs nothing', async () => {
    const payer = await fundedPayer(stack, 1_000_000n);
    const ref = await payableRef(gateway);
    const opened = await open(ref.refId, payer, { chainId: 1, knownChains: [1], rejectSwitch: true });
    const { page } = opened;
    await page.getByRole('button', { name: 'Connect wallet' }).click();
    await expect.poll(() => text(page, '#problem')).toBe('You declined to switch networks. Switch your wallet to Local test chain (chain id 31337) to pay.');
    opened.wallet!.behaviour.rejectSwitch = false;
    await page.getByRole('button', { name: 'Pay 0.01 USDC' }).click();
    await expect.poll(() => text(page, '#problem')).toBe('Your wallet does not know Local test chain (chain id 31337). Add this network in your wallet, then press Pay again.');
    await page.screenshot({ path: artifactPath('unknown-chain.png'), fullPage: true });
    expect(opened.wallet!.signed).toEqual([]);
    expect(await transfersTo(stack, ref.merchant.payTo)).toEqual([]);
    await expectCleanPage(opened);
  });

  it('says there is no wallet, on load and on each press', async () => {
    const ref = await payableRef(gateway);
    const opened = await open(ref.refId, undefined);
    const { page } = opened;
    await expect.poll(() => text(page, '#problem')).toBe(noWallet);
    expect(await page.locator('#problem').getAttribute('role')).toBe('alert');
    await page.getByRole('button', { name: 'Connect wallet' }).click();
    await expect.poll(() => text(page, '#problem')).toBe(noWallet);
    await page.getByRole('button', { name: 'Pay 0.01 USDC' }).click();
    await expect.poll(() => text(page, '#problem')).toBe(noWallet);
    await page.screenshot({ path: artifactPath('no-wallet.png'), fullPage: true });
    await expectCleanPage(opened);
  });

  it('tells a payer who declines the signature that nothing was paid, and pays when they sign next time', async () => {
    const payer = await fundedPayer(stack, 1_000_000n);
    const ref = await payableRef(gateway);
    const opened = await open(ref.refId, payer, { rejectSignature: true });
    const { page } = opened;
    await page.getByRole('button', { name: 'Pay 0.01 USDC' }).click();
    await expect.poll(() => text(page, '#problem')).toBe('You declined the request in your wallet. Nothing was paid.');
    expect(await page.locator('#receipt').isHidden()).toBe(true);
    await page.screenshot({ path: artifactPath('signature-declined.png'), fullPage: true });
    expect(await transfersTo(stack, ref.merchant.payTo)).toEqual([]);
    const { rows } = await gateway.server.database.sql.query('SELECT payment_id FROM gateway_payments WHERE payer = $1', [payer.address]);
    expect(rows).toEqual([]);

    opened.wallet!.behaviour.rejectSignature = false;
    await page.getByRole('button', { name: 'Pay 0.01 USDC' }).click();
    await page.locator('#receipt').waitFor({ state: 'visible', timeout: 30_000 });
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
    await expectCleanPage(opened);
  });

  it('resends the same signed payment when the answer was lost, so the payer signs and pays once', async () => {
    const payer = await fundedPayer(stack, 1_000_000n);
    const ref = await payableRef(gateway);
    const opened = await open(ref.refId, payer);
    const { page } = opened;
    const sent: string[] = [];
    // Fault injection: the first payment reaches the gateway and settles, but its answer never reaches the page.
    await page.route('**/receive/**', async (route) => {
      const header = route.request().headers()['payment-signature'];
      if (header === undefined) return route.continue();
      sent.push(header);
      if (sent.length > 1) return route.continue();
      await route.fetch();
      return route.abort('connectionreset');
    });
    await page.getByRole('button', { name: 'Pay 0.01 USDC' }).click();
    await expect.poll(() => text(page, '#problem')).toBe(
      'The connection dropped before the payment service answered. Press Pay again to ask once more: the same signature is sent, so you cannot pay twice.',
    );
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
    await page.getByRole('button', { name: 'Pay 0.01 USDC' }).click();
    await page.locator('#receipt').waitFor({ state: 'visible', timeout: 30_000 });
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
    expect(opened.wallet!.signed).toHaveLength(1);
    const transfers = await transfersTo(stack, ref.merchant.payTo);
    expect(transfers).toHaveLength(1);
    expect(await receiptValue(page, 'Transaction')).toBe(transfers[0]!.transactionHash);
    expect(opened.problems.errors).toEqual([]);
  });

  it('waits while the payment is pending on chain, asking again with the same header, and shows the receipt once it settles', async () => {
    // A gateway that gives up on the facilitator after 1.5 s records the broadcast payment as pending (202);
    // it may not know the transaction hash yet, so the page's sentence names it only when the 202 does.
    const slow = await startTestGateway(
      { ...stack.gatewayEnv, GATEWAY_SIGNING_KEY: generatePrivateKey(), GATEWAY_FACILITATOR_SETTLE_TIMEOUT_MS: '1500' },
      { clock: new TestWallClock(), recoveryPollIntervalMs: 50 },
    );
    const rpc = (method: string, params: unknown[] = []) => stack.chain.request({ method, params } as never);
    try {
      const payer = await fundedPayer(stack, 1_000_000n);
      const ref = await payableRef(slow);
      const opened = await open(ref.refId, payer, {}, undefined, slow.url);
      const { page } = opened;
      const paymentState = async () =>
        (await slow.server.database.sql.query<{ state: string; tx_hash: string | null }>('SELECT state, tx_hash FROM gateway_payments WHERE ref_id = $1', [ref.refId])).rows[0];
      await rpc('evm_setAutomine', [false]);
      try {
        await page.getByRole('button', { name: 'Pay 0.01 USDC' }).click();
        await expect.poll(() => text(page, '#status'), { timeout: 15_000 }).toMatch(/^Your payment was sent to the network( \(transaction 0x[0-9a-f]{64}\))? and is waiting for confirmation\. Checking again in 5 s…$/);
        expect(await paymentState()).toMatchObject({ state: 'pending' });
      } finally {
        await rpc('evm_mine');
        await rpc('evm_setAutomine', [true]);
      }
      // The recovery job backs off on the gateway's clock.
      await vi.waitFor(
        async () => {
          slow.clock.advance(3_000);
          expect((await paymentState())?.state).toBe('settled');
        },
        { timeout: 20_000, interval: 200 },
      );
      await page.locator('#receipt').waitFor({ state: 'visible', timeout: 20_000 });
      const transfers = await transfersTo(stack, ref.merchant.payTo);
      expect(transfers).toHaveLength(1);
      expect(await receiptValue(page, 'Transaction')).toBe(transfers[0]!.transactionHash);
      expect((await paymentState())?.tx_hash).toBe(transfers[0]!.transactionHash);
      expect(opened.wallet!.signed).toHaveLength(1);
      await expectCleanPage(opened);
    } finally {
      await slow.close();
    }
  }, 60_000);

  it('says the wallet holds too little USDC, as a sentence', async () => {
    const payer = await fundedPayer(stack, 0n);
    const ref = await payableRef(gateway);
    const opened = await open(ref.refId, payer);
    await opened.page.getByRole('button', { name: 'Pay 0.01 USDC' }).click();
    await expect.poll(() => text(opened.page, '#problem')).toBe('Your wallet does not hold enough USDC on Local test chain (chain id 31337) for this payment. Nothing was paid.');
    await opened.page.screenshot({ path: artifactPath('insufficient-balance.png'), fullPage: true });
    await expectCleanPage(opened);
  });

  it('says a link revoked while the page was open was cancelled, without signing', async () => {
    const payer = await fundedPayer(stack, 1_000_000n);
    const ref = await payableRef(gateway);
    const opened = await open(ref.refId, payer);
    const revoked = await call(gateway.url, 'POST', `/ref/${ref.refId}/revoke`, { apiKey: ref.merchant.apiKey });
    expect(revoked.status).toBe(200);
    await opened.page.getByRole('button', { name: 'Pay 0.01 USDC' }).click();
    await expect.poll(() => text(opened.page, '#problem')).toBe('The merchant cancelled this payment link. Nothing was paid.');
    expect(opened.wallet!.signed).toEqual([]);
    await expectCleanPage(opened);
  });

  it('renders unknown (404), revoked (410) and expired (410) refs as pages that say so', async () => {
    const unknown = await open('0123456789abcdef0123456789abcdef', undefined);
    expect(unknown.status).toBe(404);
    expect(await text(unknown.page, 'h1')).toBe('Payment link not found');
    await unknown.page.screenshot({ path: artifactPath('unknown-ref.png'), fullPage: true });
    expect((await open('..%2F..%2Fetc', undefined)).status).toBe(404);

    const revokedRef = await payableRef(gateway);
    expect((await call(gateway.url, 'POST', `/ref/${revokedRef.refId}/revoke`, { apiKey: revokedRef.merchant.apiKey })).status).toBe(200);
    const revoked = await open(revokedRef.refId, undefined);
    expect(revoked.status).toBe(410);
    expect(await text(revoked.page, 'h1')).toBe('This payment link was cancelled');
    expect(revoked.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    await revoked.page.screenshot({ path: artifactPath('revoked-ref.png'), fullPage: true });

    // One second, not more: the page's rate limiter also reads this clock, and moving it back by more
    // than the relaxed limit's 60 s window would make it refuse the next tests' pages.
    const expiring = await payableRef(gateway, { extra: { expiresInSecs: 1 } });
    gateway.clock.advance(1_000);
    try {
      const expired = await open(expiring.refId, undefined);
      expect(expired.status).toBe(410);
      expect(await text(expired.page, 'h1')).toBe('This payment link has expired');
      expect(await text(expired.page, 'main p')).toMatch(/^It expired at \d{4}-\d\d-\d\d \d\d:\d\d UTC\. Ask the merchant for a new one\./);
      await expired.page.screenshot({ path: artifactPath('expired-ref.png'), fullPage: true });
      await expectCleanPage(expired);
    } finally {
      gateway.clock.advance(-1_000);
    }
  });

  it('enforces its CSP: injected inline script does not run, and no other page can frame it', async () => {
    const ref = await payableRef(gateway);
    const opened = await open(ref.refId, undefined);
    const outcome = await opened.page.evaluate(() => {
      const script = document.createElement('script');
      try {
        script.textContent = 'window.__injected = true';
      } catch (error) {
        return `refused by ${(error as Error).name}`;
      }
      document.head.append(script);
      return (window as unknown as { __injected?: boolean }).__injected === true ? 'ran' : 'blocked';
    });
    expect(outcome).not.toBe('ran');
    expect((await opened.problems.violations()).length).toBeGreaterThan(0);

    const framer = await opened.page.context().newPage();
    await framer.setContent(`<iframe src="${gateway.url}/pay/${ref.refId}"></iframe>`);
    await expect.poll(() => framer.frames().length).toBe(2);
    const frame = framer.frames()[1]!;
    // Something loads in the frame (the browser's "blocked" page), and it is not the pay page.
    await expect.poll(() => frame.evaluate(() => document.body?.innerText.trim().length ?? 0).catch(() => 0)).toBeGreaterThan(0);
    expect(await frame.locator('#pay').count()).toBe(0);
    expect(await frame.locator('h1').allInnerTexts()).not.toContain('Pay 0.01 USDC');
  });

  it('fits a phone screen with readable contrast and large targets', async () => {
    const payer = await fundedPayer(stack, 0n);
    const ref = await payableRef(gateway, { amount: undefined, extra: { description: 'A long description '.repeat(10).trim() } });
    const opened = await open(ref.refId, payer, {}, { width: 360, height: 740 });
    const { page } = opened;
    await page.getByRole('button', { name: 'Pay' }).click();
    await expect.poll(() => text(page, '#amount-error')).toBe('Enter the amount to pay.');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    for (const id of ['amount', 'connect', 'pay-button']) {
      const box = await page.locator(`#${id}`).boundingBox();
      expect(box!.height, id).toBeGreaterThanOrEqual(44);
      expect(box!.x + box!.width, id).toBeLessThanOrEqual(360);
    }
    const ratios = await page.evaluate(() => {
      const channel = (value: number) => {
        const c = value / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      };
      const rgb = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number);
      const luminance = ([r = 0, g = 0, b = 0]: number[]) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
      const background = (element: Element | null): number[] => {
        for (let node = element; node !== null; node = node.parentElement) {
          const parts = rgb(getComputedStyle(node).backgroundColor);
          if (parts.length === 3 || (parts[3] ?? 0) > 0) return parts;
        }
        return [255, 255, 255];
      };
      return Object.fromEntries(
        ['h1', '.description', 'dt', 'dd', 'label', '.hint', '#amount-error', '#connect', '#pay-button', 'footer p'].map((selector) => {
          const element = document.querySelector(selector)!;
          const [a, b] = [luminance(rgb(getComputedStyle(element).color)), luminance(background(element))];
          return [selector, Math.round(((Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)) * 10) / 10];
        }),
      );
    });
    for (const [selector, ratio] of Object.entries(ratios)) expect(ratio, selector).toBeGreaterThanOrEqual(4.5);
    await page.screenshot({ path: artifactPath('phone-open-ref.png'), fullPage: true });
    await expectCleanPage(opened);
  });
});
