// GET /receive/:payTo without a chain: the 402 negotiation (PAYMENT-REQUIRED, offers, determinism),
// every refusal, the decoding of PAYMENT-SIGNATURE, CORS, and settlement without a facilitator.
import { decodePaymentRequiredHeader as officialDecodePaymentRequired } from '@x402/core/http';
import { verifyOfferSignatureEIP712, type EIP712SignedOffer } from '@x402/extensions/offer-receipt';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultNetworks, type PaymentRequirements } from '@tollgate/core';
import { base64UrlEncode, utf8Encode } from '@tollgate/core/crypto';
import {
  decodePaymentRequiredHeader,
  verifySignedOffer,
  type SignedTollgateOffer,
} from '@tollgate/core/x402';
import { call, expectError, freshAccount, registerMerchant, startTestGateway, type TestGateway, type TestMerchant } from '../helpers/gateway';
import { encodePayment, payableRef, signPayment, type PayableRef, type TokenDomainFacts } from '../helpers/payments';
import { TestWallClock } from '../helpers/clock';

const signingKey = generatePrivateKey();
const receiptSigner = privateKeyToAccount(signingKey).address;
const local = defaultNetworks.find((network) => network.name === 'local')!;
const token: TokenDomainFacts = { chainId: local.chainId, address: local.usdc.address, name: local.usdc.name, version: local.usdc.version };

let gateway: TestGateway;
let merchant: TestMerchant;
let fixed: PayableRef;
let open: PayableRef;

beforeAll(async () => {
  gateway = await startTestGateway({ GATEWAY_SIGNING_KEY: signingKey }, { clock: new TestWallClock() });
  merchant = await registerMerchant(gateway.url, { network: 'local' });
  fixed = await payableRef(gateway, { merchant, extra: { description: 'Fixed ✓' } });
  open = await payableRef(gateway, { merchant, amount: undefined });
});
afterAll(() => gateway?.close());

const receive = (path: string, headers: Record<string, string> = {}) => call(gateway.url, 'GET', path, { headers });
const nowSeconds = () => Math.floor(gateway.clock.now() / 1000);

async function requirementsOf(path: string): Promise<PaymentRequirements> {
  const response = await receive(path);
  expect(response.status).toBe(402);
  return decodePaymentRequiredHeader(response.headers.get('payment-required') ?? undefined).accepts[0]!;
}

describe('the 402 negotiation', () => {
  it('answers 402 with PAYMENT-REQUIRED in standard base64, the payment_required envelope and the exact requirement', async () => {
    const response = await receive(fixed.path);
    expect(response.status).toBe(402);
    const header = response.headers.get('payment-required') ?? '';
    expect(header).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expectError(response, 402, 'payment_required');
    expect(response.body).toMatchObject({ error: { details: { refId: fixed.refId, network: 'eip155:31337', amount: '10000', payTo: merchant.payTo } } });
    const required = decodePaymentRequiredHeader(header);
    expect(officialDecodePaymentRequired(header)).toEqual(JSON.parse(Buffer.from(header, 'base64').toString('utf8')));
    expect(required).toMatchObject({
      x402Version: 2,
      error: 'PAYMENT-SIGNATURE header is required',
      resource: { url: fixed.resource, description: 'Fixed ✓', mimeType: 'application/json' },
    });
    expect(required.accepts).toEqual([
      {
        scheme: 'exact',
        network: 'eip155:31337',
        amount: '10000',
        asset: local.usdc.address,
        payTo: merchant.payTo,
        maxTimeoutSeconds: 300,
        extra: { name: 'USD Coin', version: '2' },
      },
    ]);
    expect(Object.keys(required.extensions ?? {}).sort()).toEqual(['offer-receipt', 'payment-identifier', 'tollgate-offer']);
    expect(required.extensions?.['payment-identifier']).toMatchObject({ info: { required: false } });
  });

  it('signs both offers with the gateway key published in /healthz, bound to this payment', async () => {
    const health = await call<{ receiptSigner: string }>(gateway.url, 'GET', '/healthz');
    expect(health.body.receiptSigner).toBe(receiptSigner);
    const response = await receive(fixed.path);
    const required = decodePaymentRequiredHeader(response.headers.get('payment-required') ?? undefined);
    const accepted = required.accepts[0]!;
    const official = (required.extensions?.['offer-receipt'] as { info: { offers: EIP712SignedOffer[] } }).info.offers[0]!;
    const verified = await verifyOfferSignatureEIP712(official);
    expect(verified.signer).toBe(receiptSigner);
    expect(verified.payload).toMatchObject({ resourceUrl: fixed.resource, scheme: 'exact', network: 'eip155:31337', asset: accepted.asset, payTo: accepted.payTo, amount: '10000' });
    const offer = (required.extensions?.['tollgate-offer'] as { info: SignedTollgateOffer }).info;
    const payload = verifySignedOffer(offer, {
      expectedSigner: receiptSigner,
      now: nowSeconds(),
      expected: { gatewayOrigin: new URL(fixed.resource).origin, resourceUrl: fixed.resource, payTo: merchant.payTo as `0x${string}`, amount: '10000', network: 'eip155:31337', chainId: 31337, asset: local.usdc.address },
    });
    expect(payload.expiry).toBeGreaterThanOrEqual(nowSeconds() + 300);
    expect(payload.expiry % 60).toBe(0);
    expect(verified.payload.validUntil).toBe(payload.expiry);
  });

  it('is deterministic: the same ref and amount give identical accepts[], and identical bytes within an offer granule', async () => {
    const first = await receive(fixed.path);
    const second = await receive(fixed.path);
    expect(second.headers.get('payment-required')).toBe(first.headers.get('payment-required'));
    expect(second.text).toBe(first.text);
    gateway.clock.advance(120_000);
    const later = await receive(fixed.path);
    const [before, after] = [first, later].map((response) => decodePaymentRequiredHeader(response.headers.get('payment-required') ?? undefined));
    expect(JSON.stringify(after!.accepts)).toBe(JSON.stringify(before!.accepts));
    expect(after!.extensions?.['tollgate-offer']).not.toEqual(before!.extensions?.['tollgate-offer']);
  });

  it('takes the amount of an open ref from the query, and refuses a missing or malformed one', async () => {
    expect((await requirementsOf(`${open.path}&amount=2500`)).amount).toBe('2500');
    expect(expectError(await receive(open.path), 400, 'invalid_request')).toMatchObject({ field: 'amount', reason: 'amount_required' });
    for (const amount of ['0', '0100', '1e4', '-5', '1.5', '', ' 5', `1${'0'.repeat(78)}`]) {
      expect(expectError(await receive(`${open.path}&amount=${encodeURIComponent(amount)}`), 400, 'invalid_request'), amount).toMatchObject({ field: 'amount' });
    }
  });

  it('accepts a fixed ref’s own amount in the query and refuses any other', async () => {
    expect((await requirementsOf(`${fixed.path}&amount=10000`)).amount).toBe('10000');
    expect(expectError(await receive(`${fixed.path}&amount=9999`), 400, 'invalid_request')).toMatchObject({ field: 'amount', reason: 'fixed_amount_mismatch' });
  });
});

describe('refusals', () => {
  it('answers not_found for an unknown ref, a malformed ref id and a ref of another payTo; invalid_request without ref', async () => {
    const other = await registerMerchant(gateway.url, { network: 'local' });
    expectError(await receive(`/receive/${merchant.payTo}?ref=${'ab'.repeat(16)}`), 404, 'not_found');
    expectError(await receive(`/receive/${merchant.payTo}?ref=not-a-ref`), 404, 'not_found');
    expectError(await receive(`/receive/${other.payTo}?ref=${fixed.refId}`), 404, 'not_found');
    expectError(await receive(`/receive/not-an-address?ref=${fixed.refId}`), 404, 'not_found');
    expect((await requirementsOf(`/receive/${merchant.payTo.toLowerCase()}?ref=${fixed.refId}`)).payTo).toBe(merchant.payTo);
    expect(expectError(await receive(`/receive/${merchant.payTo}`), 400, 'invalid_request')).toMatchObject({ field: 'ref' });
    expect(expectError(await receive(`${fixed.path}&refundOf=sha256:${'00'.repeat(32)}`), 400, 'invalid_request')).toMatchObject({ field: 'refundOf' });
  });

  it('refuses a revoked ref, an expired ref (expiry first) and a retired payTo', async () => {
    const owner = await registerMerchant(gateway.url, { network: 'local' });
    const revoked = await payableRef(gateway, { merchant: owner });
    const expiring = await payableRef(gateway, { merchant: owner, extra: { expiresInSecs: 60 } });
    const both = await payableRef(gateway, { merchant: owner, extra: { expiresInSecs: 60 } });
    for (const ref of [revoked, both]) expect((await call(gateway.url, 'POST', `/ref/${ref.refId}/revoke`, { apiKey: owner.apiKey })).status).toBe(200);
    expectError(await receive(revoked.path), 410, 'ref_revoked');
    expect((await receive(expiring.path)).status).toBe(402);
    gateway.clock.advance(61_000);
    expectError(await receive(expiring.path), 410, 'ref_expired');
    expectError(await receive(both.path), 410, 'ref_expired');
    const live = await payableRef(gateway, { merchant: owner });
    expect((await call(gateway.url, 'POST', `/payto/${owner.payTo}/revoke`, { apiKey: owner.apiKey })).status).toBe(200);
    expectError(await receive(live.path), 410, 'payto_revoked');
  });
});

describe('the 402 status cache and this instance’s own changes', () => {
  it('refuses at once, without the clock moving, a ref revoked and a payTo retired over HTTP after a 402', async () => {
    const owner = await registerMerchant(gateway.url, { network: 'local' });
    const revoked = await payableRef(gateway, { merchant: owner });
    const sibling = await payableRef(gateway, { merchant: owner });
    expect((await receive(revoked.path)).status).toBe(402);
    expect((await receive(sibling.path)).status).toBe(402);
    expect((await call(gateway.url, 'POST', `/ref/${revoked.refId}/revoke`, { apiKey: owner.apiKey })).status).toBe(200);
    expectError(await receive(revoked.path), 410, 'ref_revoked');
    expect((await receive(sibling.path)).status).toBe(402);
    expect((await call(gateway.url, 'POST', `/payto/${owner.payTo}/revoke`, { apiKey: owner.apiKey })).status).toBe(200);
    expectError(await receive(sibling.path), 410, 'payto_revoked');
  });
});

describe('PAYMENT-SIGNATURE decoding and settlement without a facilitator', () => {
  const withSignature = (header: string) => receive(fixed.path, { 'payment-signature': header });
  const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64');

  it('runs every offline check, then answers facilitator_unavailable (503), in base64 and base64url alike', async () => {
    const accepted = await requirementsOf(fixed.path);
    const payload = await signPayment(token, freshAccount(), accepted);
    const standard = encodePayment(payload);
    const urlSafe = base64UrlEncode(utf8Encode(JSON.stringify(payload)));
    expect(urlSafe).not.toBe(standard);
    for (const header of [standard, urlSafe]) {
      expect(expectError(await withSignature(header), 503, 'facilitator_unavailable')).toEqual({ reason: 'not_configured' });
    }
    const tampered = { ...payload, payload: { ...(payload.payload as object), signature: `0x${'11'.repeat(65)}` } };
    expect(expectError(await withSignature(encodePayment(tampered)), 402, 'payment_verification_failed')).toMatchObject({ field: 'signature' });
  });

  it('refuses unreadable headers with invalid_request and non-x402-v2 documents with payment_verification_failed', async () => {
    expect(expectError(await withSignature('%%%not base64%%%'), 400, 'invalid_request')).toMatchObject({ reason: 'invalid_base64' });
    expect(expectError(await withSignature(encode('not json')), 400, 'invalid_request')).toMatchObject({ reason: 'invalid_json' });
    expect(expectError(await withSignature(Buffer.from([0xff, 0xfe, 0xfd]).toString('base64')), 400, 'invalid_request')).toMatchObject({ reason: 'invalid_utf8' });
    expect(expectError(await withSignature(encode('{"x402Version":1}')), 402, 'payment_verification_failed')).toMatchObject({ reason: 'unsupported_version' });
    expect(expectError(await withSignature(encode('[2]')), 402, 'payment_verification_failed')).toMatchObject({ reason: 'invalid_shape' });
    expect(expectError(await withSignature(encode('{"x402Version":2}')), 402, 'payment_verification_failed')).toMatchObject({ reason: 'invalid_shape', field: 'accepted' });
    const accepted = await requirementsOf(fixed.path);
    const broken = { x402Version: 2, accepted, payload: { authorization: { from: '0x12' }, signature: '0x00' } };
    expect(expectError(await withSignature(encodePayment(broken)), 402, 'payment_verification_failed')).toMatchObject({ field: 'authorization.from', reason: 'malformed' });
    const payload = await signPayment(token, freshAccount(), accepted, { extensions: { 'payment-identifier': { info: { required: false, id: 'short' } } } });
    expect(expectError(await withSignature(encodePayment(payload)), 400, 'invalid_request')).toMatchObject({ field: 'extensions.payment-identifier.info.id' });
  });

  it('refuses a payment nesting thousands of levels with invalid_request, not a 500', async () => {
    const accepted = await requirementsOf(fixed.path);
    const deep = `${'['.repeat(3_000)}${']'.repeat(3_000)}`;
    const payload = JSON.stringify(await signPayment(token, freshAccount(), accepted, { extensions: { deep: '§' } })).replace('"§"', deep);
    expect(expectError(await withSignature(encode(payload)), 400, 'invalid_request')).toMatchObject({ reason: 'too_deep', maxDepth: 32 });
  });

  it('never settles on HEAD: it negotiates', async () => {
    const accepted = await requirementsOf(fixed.path);
    const header = encodePayment(await signPayment(token, freshAccount(), accepted));
    const response = await fetch(`${gateway.url}${fixed.path}`, { method: 'HEAD', headers: { 'payment-signature': header } });
    expect(response.status).toBe(402);
    expect(response.headers.get('payment-required')).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
  });
});

describe('CORS on /receive', () => {
  it('answers preflights allowing PAYMENT-SIGNATURE and exposes the x402 headers', async () => {
    const preflight = await fetch(`${gateway.url}${fixed.path}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'payment-signature' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET');
    expect(preflight.headers.get('access-control-allow-headers')?.split(', ')).toContain('payment-signature');
    const response = await fetch(`${gateway.url}${fixed.path}`, { headers: { origin: 'https://shop.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-expose-headers')?.split(', ')).toEqual(expect.arrayContaining(['payment-required', 'payment-response']));
    const refused = await fetch(`${gateway.url}/receive/${merchant.payTo}?ref=${'ab'.repeat(16)}`, { headers: { origin: 'https://shop.example' } });
    expect(refused.status).toBe(404);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  });
});
