// GET /txs on a real anvil chain through the started gateway: payments spread over many small block
// windows, walked page by page with the opaque cursors (no duplicates, no gaps, stable order, the exact
// set the chain holds), filters, query validation, tampered cursors, the scan and byte bounds, and the
// merchant deployment policy (API key required; a merchant sees its own payTos only).
import type { LocalAccount } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, registerMerchant, type TestGateway, type TestMerchant } from '../helpers/gateway';
import { demoPayer, fundedPayer, mintUsdc, payableRef, startPaymentStack, type PaymentStack } from '../helpers/payments';
import { mine, payForReceipt, startEvidenceGateway, startRpcProxy, type RpcProxy } from './helpers';
import { TestWallClock } from '../helpers/clock';

interface Item {
  txHash: string;
  blockNumber: string;
  blockHash: string;
  token: string;
  from: string;
  to: string;
  value: string;
  logIndex: number;
}
interface Page {
  network: string;
  asset: string;
  items: Item[];
  scanned: { fromBlock: string; toBlock: string } | null;
  nextCursor?: string;
}

const maxBlockSpan = 5;
const scanBlocks = 12;

let stack: PaymentStack;
let proxy: RpcProxy;
let gateway: TestGateway;
let merchant: TestMerchant;
let other: TestMerchant;
let payerA: LocalAccount;
let payerB: LocalAccount;

beforeAll(async () => {
  stack = await startPaymentStack();
  proxy = await startRpcProxy(stack.anvil.rpcUrl);
  gateway = await startEvidenceGateway(
    stack,
    { GATEWAY_RPC_URLS: `local=${proxy.url}`, GATEWAY_MAX_BLOCK_SPAN: String(maxBlockSpan), GATEWAY_HISTORY_SCAN_BLOCKS: String(scanBlocks) },
    { clock: new TestWallClock() },
  );
  merchant = await registerMerchant(gateway.url, { network: 'local' });
  other = await registerMerchant(gateway.url, { network: 'local' });
  payerA = demoPayer(stack);
  payerB = await fundedPayer(stack, 1_000_000n);
  // Payments spread over many windows of 5 blocks, with empty stretches between them.
  const plan: [TestMerchant, LocalAccount][] = [
    [merchant, payerA],
    [merchant, payerB],
    [other, payerA],
    [merchant, payerA],
    [merchant, payerB],
    [other, payerB],
    [merchant, payerA],
  ];
  for (const [to, payer] of plan) {
    await payForReceipt(gateway, stack, { ref: await payableRef(gateway, { merchant: to }), payer });
    await mine(stack, 7);
  }
});
afterAll(async () => {
  await gateway?.close();
  await proxy?.close();
  await stack?.stop();
});

const txs = (query: string, apiKey?: string, base = gateway.url) => call<Page>(base, 'GET', `/txs?${query}`, apiKey === undefined ? {} : { apiKey });

/** Follows nextCursor to the end; returns every page. */
async function walk(query: string, options: { apiKey?: string; base?: string; beforeNext?: () => Promise<void> } = {}): Promise<Page[]> {
  const pages: Page[] = [];
  let response = await txs(query, options.apiKey, options.base);
  for (;;) {
    expect(response.status, response.text).toBe(200);
    pages.push(response.body);
    const cursor = response.body.nextCursor;
    if (cursor === undefined) return pages;
    expect(pages.length).toBeLessThan(200);
    await options.beforeNext?.();
    response = await txs(`cursor=${encodeURIComponent(cursor)}`, options.apiKey, options.base);
  }
}

/** The USDC transfers the chain holds, newest first, as /txs items. */
async function chainTransfers(filter: { to?: string; from?: string; fromBlock?: number }): Promise<Item[]> {
  const logs = await stack.chain.getLogs({ address: stack.setup.usdc.address, fromBlock: BigInt(filter.fromBlock ?? 0), toBlock: 'latest' });
  const word = (address: string | undefined) => (address === undefined ? undefined : `0x${address.slice(2).toLowerCase().padStart(64, '0')}`);
  return logs
    .filter((log) => log.topics.length === 3 && log.topics[0] === transferTopic && (filter.from === undefined || log.topics[1] === word(filter.from)) && (filter.to === undefined || log.topics[2] === word(filter.to)))
    .map((log) => ({ txHash: log.transactionHash, blockNumber: log.blockNumber.toString(), logIndex: log.logIndex }))
    .sort((a, b) => Number(b.blockNumber) - Number(a.blockNumber) || b.logIndex - a.logIndex) as Item[];
}

const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const positions = (items: Pick<Item, 'txHash' | 'blockNumber' | 'logIndex'>[]) => items.map((item) => `${item.blockNumber}:${item.logIndex}:${item.txHash.toLowerCase()}`);

describe('GET /txs walks every window with cursors', () => {
  it('returns each transfer to pay_to exactly once, newest first, across pages and windows', async () => {
    const expected = await chainTransfers({ to: merchant.payTo });
    expect(expected.length).toBe(5);
    for (const limit of [1, 2, 100]) {
      proxy.calls.length = 0;
      const pages = await walk(`pay_to=${merchant.payTo}&limit=${limit}`);
      const items = pages.flatMap((page) => page.items);
      expect(positions(items)).toEqual(positions(expected));
      expect(new Set(positions(items)).size).toBe(items.length);
      for (const item of items) expect(item).toMatchObject({ token: stack.setup.usdc.address, to: merchant.payTo, value: '10000' });
      for (const page of pages) {
        expect(page).toMatchObject({ network: 'local', asset: 'USDC' });
        expect(page.items.length).toBeLessThanOrEqual(limit);
        // One request walks at most GATEWAY_HISTORY_SCAN_BLOCKS blocks…
        const scanned = page.scanned as NonNullable<Page['scanned']>;
        expect(Number(scanned.toBlock) - Number(scanned.fromBlock) + 1).toBeLessThanOrEqual(scanBlocks);
      }
      // …in eth_getLogs windows of at most GATEWAY_MAX_BLOCK_SPAN blocks.
      const windows = proxy.calls.filter((entry) => entry.method === 'eth_getLogs').map((entry) => entry.params[0] as { fromBlock: string; toBlock: string });
      expect(windows.length).toBeGreaterThan(0);
      for (const window of windows) expect(Number(BigInt(window.toBlock) - BigInt(window.fromBlock)) + 1).toBeLessThanOrEqual(maxBlockSpan);
      if (limit === 100) expect(pages.length).toBeGreaterThan(1); // the scan bound, not the limit, ended pages
    }
  });

  it('keeps a walk stable while new transfers are mined', async () => {
    const expected = await chainTransfers({ to: merchant.payTo });
    let paid = false;
    const pages = await walk(`pay_to=${merchant.payTo}&limit=2`, {
      beforeNext: async () => {
        if (paid) return;
        paid = true;
        await payForReceipt(gateway, stack, { ref: await payableRef(gateway, { merchant }) });
      },
    });
    expect(positions(pages.flatMap((page) => page.items))).toEqual(positions(expected));
    expect((await chainTransfers({ to: merchant.payTo })).length).toBe(expected.length + 1);
  });

  it('filters by from, by pay_to and from together, and by from_block', async () => {
    const fromB = await walk(`from=${payerB.address}&limit=3`);
    const fromBItems = fromB.flatMap((page) => page.items);
    expect(positions(fromBItems)).toEqual(positions(await chainTransfers({ from: payerB.address })));
    expect(fromBItems.length).toBe(3);
    for (const item of fromBItems) expect(item.from).toBe(payerB.address);

    const both = (await walk(`pay_to=${merchant.payTo}&from=${payerB.address}`)).flatMap((page) => page.items);
    expect(positions(both)).toEqual(positions(await chainTransfers({ to: merchant.payTo, from: payerB.address })));
    expect(both.length).toBe(2);

    const all = await chainTransfers({ to: merchant.payTo });
    const fromBlock = Number(all[2]?.blockNumber);
    const recent = (await walk(`pay_to=${merchant.payTo}&from_block=${fromBlock}`)).flatMap((page) => page.items);
    expect(positions(recent)).toEqual(positions(all.slice(0, 3)));

    const beyond = await txs(`pay_to=${merchant.payTo}&from_block=999999999`);
    expect(beyond.body).toEqual({ network: 'local', asset: 'USDC', items: [], scanned: null });
  });
});

describe('GET /txs refuses bad queries and bad cursors', () => {
  it('requires pay_to, from or cursor, and valid values', async () => {
    const address = merchant.payTo;
    const refused: [string, string | undefined][] = [
      ['', undefined],
      ['limit=5', undefined],
      ['asset=USDC', undefined],
      [`pay_to=${address}&asset=ETH`, 'asset'],
      [`pay_to=${address}&asset=usdc`, 'asset'],
      [`pay_to=${address}&from_block=-1`, 'from_block'],
      [`pay_to=${address}&from_block=1.5`, 'from_block'],
      [`pay_to=${address}&from_block=abc`, 'from_block'],
      [`pay_to=${address}&limit=0`, 'limit'],
      [`pay_to=${address}&limit=101`, 'limit'],
      [`pay_to=${address}&limit=-1`, 'limit'],
      [`pay_to=${address}&limit=2.5`, 'limit'],
      ['pay_to=0x1234', 'pay_to'],
      ['from=not-an-address', 'from'],
      [`pay_to=${address}&colour=red`, 'colour'],
    ];
    for (const [query, field] of refused) {
      const details = expectError(await txs(query), 400, 'invalid_request');
      if (field !== undefined) expect(details, query).toMatchObject({ field });
    }
    // A repeated parameter is refused by the query parser, which names it.
    expect(expectError(await txs(`pay_to=${address}&pay_to=${address}`), 400, 'invalid_request')).toMatchObject({ parameter: 'pay_to' });
    expect((await txs(`pay_to=${address}&asset=USDC&limit=100&from_block=0`)).status).toBe(200);
  });

  it('refuses a tampered cursor, a cursor with other filters, and one from another gateway', async () => {
    const first = await txs(`pay_to=${merchant.payTo}&limit=1`);
    const cursor = first.body.nextCursor as string;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect((await txs(`cursor=${cursor}`)).status).toBe(200);
    const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
    const tampered = [flip(cursor, 0), flip(cursor, 10), flip(cursor, cursor.indexOf('.') - 1), flip(cursor, cursor.indexOf('.') + 1), flip(cursor, cursor.length - 1), `${cursor}A`, cursor.replace('.', ''), 'abc', `${cursor}.x`];
    for (const bad of tampered) expect(expectError(await txs(`cursor=${encodeURIComponent(bad)}`), 400, 'invalid_request'), bad).toMatchObject({ field: 'cursor' });
    // A valid cursor of this walk sent with other filters.
    for (const extra of [`pay_to=${other.payTo}`, `from=${payerA.address}`, 'from_block=3']) {
      expectError(await txs(`cursor=${cursor}&${extra}`), 400, 'invalid_request');
    }
    // The same filters restated are accepted.
    expect((await txs(`cursor=${cursor}&pay_to=${merchant.payTo.toLowerCase()}`)).status).toBe(200);
    // Another gateway (another secret) cannot read this one's cursors.
    const stranger = await startEvidenceGateway(stack, {}, { clock: new TestWallClock() });
    try {
      expectError(await txs(`cursor=${cursor}`, undefined, stranger.url), 400, 'invalid_request');
    } finally {
      await stranger.close();
    }
  });
});

describe('GET /txs response-byte bound', () => {
  it('stops a page before GATEWAY_EVIDENCE_MAX_RESPONSE_BYTES and continues with the cursor', async () => {
    const maxBytes = 4_096;
    const small = await startEvidenceGateway(stack, { GATEWAY_EVIDENCE_MAX_RESPONSE_BYTES: String(maxBytes) }, { clock: new TestWallClock() });
    try {
      const holder = (await fundedPayer(stack, 0n)).address;
      for (let index = 0; index < 20; index++) await mintUsdc(stack, holder, BigInt(index + 1));
      const expected = await chainTransfers({ to: holder });
      expect(expected.length).toBe(20);
      const first = await txs(`pay_to=${holder}&limit=100`, undefined, small.url);
      expect(first.status).toBe(200);
      expect(Buffer.byteLength(first.text)).toBeLessThanOrEqual(maxBytes);
      expect(first.body.items.length).toBeGreaterThan(0);
      expect(first.body.items.length).toBeLessThan(20);
      expect(first.body.nextCursor).toEqual(expect.any(String));
      const pages = await walk(`pay_to=${holder}&limit=100`, { base: small.url });
      expect(positions(pages.flatMap((page) => page.items))).toEqual(positions(expected));
      expect(pages.flatMap((page) => page.items).map((item) => item.value)).toEqual(Array.from({ length: 20 }, (_, index) => String(20 - index)));
    } finally {
      await small.close();
    }
  });
});

describe('merchant deployment policy (GATEWAY_EVIDENCE_ACCESS=merchant)', () => {
  let restricted: TestGateway;
  let shopA: TestMerchant;
  let shopB: TestMerchant;
  let paidA: Awaited<ReturnType<typeof payForReceipt>>;
  let paidB: Awaited<ReturnType<typeof payForReceipt>>;

  beforeAll(async () => {
    restricted = await startEvidenceGateway(stack, { GATEWAY_EVIDENCE_ACCESS: 'merchant', GATEWAY_MAX_BLOCK_SPAN: '5', GATEWAY_HISTORY_SCAN_BLOCKS: '100000' }, { clock: new TestWallClock() });
    shopA = await registerMerchant(restricted.url, { network: 'local' });
    shopB = await registerMerchant(restricted.url, { network: 'local' });
    paidA = await payForReceipt(restricted, stack, { ref: await payableRef(restricted, { merchant: shopA }) });
    paidB = await payForReceipt(restricted, stack, { ref: await payableRef(restricted, { merchant: shopB }) });
  });
  afterAll(async () => {
    await restricted?.close();
  });

  it('requires a merchant API key on every evidence route', async () => {
    expectError(await txs(`pay_to=${shopA.payTo}`, undefined, restricted.url), 401, 'unauthorized');
    expectError(await txs(`pay_to=${shopA.payTo}`, 'not-a-key', restricted.url), 401, 'unauthorized');
    expectError(await call(restricted.url, 'GET', `/tx/${paidA.txHash}`), 401, 'unauthorized');
    expectError(await call(restricted.url, 'POST', '/verify-receipt', { json: { signedReceipt: paidA.signedReceipt, receipt: paidA.receipt, minConfirmations: 1 } }), 401, 'unauthorized');
  });

  it('shows a merchant only transfers to its own payTo', async () => {
    const own = (await walk(`pay_to=${shopA.payTo}`, { apiKey: shopA.apiKey, base: restricted.url })).flatMap((page) => page.items);
    expect(own.map((item) => item.txHash)).toEqual([paidA.txHash.toLowerCase()]);
    for (const item of own) expect(item.to).toBe(shopA.payTo);
    // Another merchant's payTo, or a payer's outgoing transfers, are not_found, as if nothing existed.
    expectError(await txs(`pay_to=${shopB.payTo}`, shopA.apiKey, restricted.url), 404, 'not_found');
    expectError(await txs(`from=${paidA.receipt.payer}`, shopA.apiKey, restricted.url), 404, 'not_found');
    // A cursor of shop B's walk does not open it to shop A.
    const walkB = await txs(`pay_to=${shopB.payTo}&limit=1&from_block=0`, shopB.apiKey, restricted.url);
    expect(walkB.body.items.map((item) => item.txHash)).toEqual([paidB.txHash.toLowerCase()]);
    expect(walkB.body.nextCursor).toEqual(expect.any(String));
    expectError(await txs(`cursor=${walkB.body.nextCursor as string}`, shopA.apiKey, restricted.url), 404, 'not_found');

    const ownTx = await call<{ found: boolean; status: string; transfer: { to: string } }>(restricted.url, 'GET', `/tx/${paidA.txHash}`, { apiKey: shopA.apiKey });
    expect(ownTx.body).toMatchObject({ found: true, status: 'success', transfer: { to: shopA.payTo } });
    const othersTx = await call<{ found: boolean; status: string }>(restricted.url, 'GET', `/tx/${paidB.txHash}`, { apiKey: shopA.apiKey });
    expect(othersTx.body).toMatchObject({ found: false, status: 'not_found' });
  });
});
