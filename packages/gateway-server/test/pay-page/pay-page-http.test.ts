// The pay page over HTTP on the real server (no browser): which routes the gateway serves, the status and
// headers of each page, and merchant text with invisible control characters refused at ref creation.
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createRef, expectError, registerMerchant, requestChallenge, startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway';
import { payableRef, startPaymentStack, type PaymentStack } from '../helpers/payments';
import { TestWallClock } from '../helpers/clock';

let stack: PaymentStack;
let gateway: TestGateway;
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startTestGateway({ ...stack.gatewayEnv, GATEWAY_SIGNING_KEY: generatePrivateKey() }, { clock: new TestWallClock() });
  merchant = await registerMerchant(gateway.url, { network: 'local' });
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

const page = (path: string, method = 'GET') => fetch(`${gateway.url}${path}`, { method });

describe('GET /pay/:refId on the gateway server', () => {
  it('serves the page, its HEAD and its two assets', async () => {
    const ref = await payableRef(gateway, { merchant, amount: '1000000' });
    const response = await page(`/pay/${ref.refId}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const html = await response.text();
    expect(html).toContain('<h1>Pay 1.00 USDC</h1>');
    const head = await page(`/pay/${ref.refId}`, 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const [, asset] of html.matchAll(/(?:src|href)="assets\/(pay-[0-9a-f]{16}\.(?:js|css))"/g)) {
      const file = await page(`/pay/assets/${asset}`);
      expect(file.status, asset).toBe(200);
      expect(file.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
  });

  it('answers 404 and 410 pages, in HTML, for unknown and revoked refs', async () => {
    const unknown = await page('/pay/00000000000000000000000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const ref = await payableRef(gateway, { merchant });
    expect((await call(gateway.url, 'POST', `/ref/${ref.refId}/revoke`, { apiKey: merchant.apiKey })).status).toBe(200);
    const revoked = await page(`/pay/${ref.refId}`);
    expect(revoked.status).toBe(410);
    expect(await revoked.text()).toContain('data-reason="revoked"');
  });
});

describe('merchant text with invisible control characters', () => {
  const refused = async (options: Record<string, unknown>) => expectError(await createRef(gateway.url, merchant, { network: 'local', ...options }), 400, 'invalid_request');

  it('refuses a right-to-left override in a description, naming the character', async () => {
    const details = await refused({ description: 'evil\u202eexe.txt' });
    expect(details).toMatchObject({ field: 'description', issues: [{ field: 'description', message: expect.stringContaining('U+202E at character 5') }] });
  });

  it('refuses every bidi, separator and invisible formatting character in labels and descriptions', async () => {
    for (const character of ['\u202a', '\u202d', '\u2066', '\u2069', '\u2028', '\u2029', '\u200e', '\u200f', '\u061c', '\ufeff', '\u200b', '\u0085']) {
      expect((await refused({ description: `a${character}b` }))['field']).toBe('description');
      expect((await refused({ label: `a${character}b` }))['field']).toBe('label');
    }
  });

  it('keeps line breaks (LF and CRLF) and tabs in descriptions, and shows them as text on the page', async () => {
    const description = 'Line one\r\nLine two\n\tindented <b>not bold</b>';
    const created = await createRef(gateway.url, merchant, { network: 'local', description });
    expect(created.status, created.text).toBe(201);
    expect((created.body['snapshot'] as { description: string }).description).toBe(description);
    const html = await (await page(`/pay/${created.body['refId'] as string}`)).text();
    expect(html).toContain('Line one\r\nLine two\n\tindented &lt;b&gt;not bold&lt;/b&gt;');
    expect((await refused({ description: 'over\rwrite' }))['field']).toBe('description');
  });

  it('refuses a merchant label with a direction override at registration', async () => {
    const account = (await import('viem/accounts')).privateKeyToAccount(generatePrivateKey());
    const challenge = await requestChallenge(gateway.url, account.address, { network: 'local' });
    const signature = await account.signMessage({ message: challenge.body.signingMessage });
    const response = await call(gateway.url, 'POST', '/merchant/register', {
      json: { challengeId: challenge.body.challengeId, payTo: account.address, network: 'local', label: 'Shop\u202egnp.exe', signature },
    });
    expect(expectError(response, 400, 'invalid_request')['field']).toBe('label');
  });
});
