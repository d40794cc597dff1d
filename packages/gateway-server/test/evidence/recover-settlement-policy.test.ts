// POST /recover-settlement under faults and policies, through the real gateway server: a dead or
// silent RPC answers 503 rpc_unavailable within its deadline (a stored answer still comes back); the
// merchant policy wants an API key, scopes a merchant to its own refs and rate-limits before the key
// lookup; and no body, however broken, gets a 5xx or anything but the JSON error envelope.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@tollgate/core';
import { base64Encode, utf8Encode } from '@tollgate/core/crypto';
import { seededRandom } from '@tollgate/core/testing';
import { call, expectError, registerMerchant, type TestGateway } from '../helpers/gateway';
import { decodeHeader, demoPayer, officialPaymentHeader, payableRef, startPaymentStack, type PayableRef, type PaymentStack } from '../helpers/payments';
import { answerBytes, expectEnvelope, recover } from '../helpers/recovery-app';
import { startEvidenceGateway, startRpcProxy, type RpcProxy } from './helpers';
import { TestWallClock } from '../helpers/clock';

const rpcTimeoutMs = 1_000;

let stack: PaymentStack;
beforeAll(async () => {
  stack = await startPaymentStack();
});
afterAll(() => stack?.stop());
beforeEach(() => stack.resetCounts());

const pay = (gateway: TestGateway, path: string, header: string) => call(gateway.url, 'GET', path, { headers: { 'payment-signature': header } });

describe('on a public gateway whose RPC can fail', () => {
  let proxy: RpcProxy;
  let gateway: TestGateway;
  let ref: PayableRef;
  let unsettled: string;
  beforeAll(async () => {
    proxy = await startRpcProxy(stack.anvil.rpcUrl);
    gateway = await startEvidenceGateway(stack, { GATEWAY_RPC_URLS: `local=${proxy.url}`, GATEWAY_RPC_TIMEOUT_MS: String(rpcTimeoutMs) }, { clock: new TestWallClock() });
    ref = await payableRef(gateway);
    unsettled = (await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack))).header;
  });
  afterAll(async () => {
    await gateway?.close();
    await proxy?.close();
  });

  it('answers 503 rpc_unavailable with Retry-After within the RPC deadline when the RPC is silent or refuses, and a stored answer still comes back', async () => {
    const settledRef = await payableRef(gateway, { merchant: ref.merchant });
    const { header } = await officialPaymentHeader(gateway, settledRef.path, stack, demoPayer(stack));
    const paid = answerBytes(await pay(gateway, settledRef.path, header));
    expect(paid.status, paid.body).toBe(200);
    try {
      for (const mode of ['blackhole', 'refuse'] as const) {
        proxy.mode = mode;
        for (const hint of [{}, { txHash: `0x${'ab'.repeat(32)}` }]) {
          const started = Date.now();
          const response = await recover(gateway.url, { refId: ref.refId, paymentPayload: unsettled, ...hint });
          // Hang guard, not a speed test: one chain read's deadline plus generous slack.
          expect(Date.now() - started).toBeLessThan(rpcTimeoutMs + 2_000);
          expect(expectError(response, 503, 'rpc_unavailable')).toMatchObject({ reason: 'rpc_unavailable' });
          expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
        }
        expect(answerBytes(await recover(gateway.url, { refId: settledRef.refId, paymentPayload: header }))).toEqual(paid);
      }
    } finally {
      proxy.mode = 'forward';
    }
    // The chain readable again: the payload is simply not settled.
    expect(expectError(await recover(gateway.url, { refId: ref.refId, paymentPayload: unsettled }), 404, 'not_found')).toMatchObject({ settled: false });
    expect(stack.counts.settle).toBe(1);
  });

  it('never answers a broken body with a 5xx or without the JSON error envelope, and never settles', async () => {
    const valid = decodeHeader<Record<string, unknown>>(unsettled);
    const accepted = valid['accepted'] as Record<string, unknown>;
    const inner = valid['payload'] as { authorization: Record<string, unknown>; signature: string };
    const b64 = (text: string) => base64Encode(utf8Encode(text));
    const raw: [string, string, Record<string, string>?][] = [
      ['not JSON', '{'],
      ['truncated', '{"refId":'],
      ['JSON null', 'null'],
      ['JSON array', '[]'],
      ['JSON string', '"recover"'],
      ['JSON number', '42'],
      ['duplicate keys', `{"refId":"${ref.refId}","refId":"other","paymentPayload":"${unsettled}"}`],
      ['deep nesting', `{"refId":"${ref.refId}","paymentPayload":${'['.repeat(5_000)}${']'.repeat(5_000)}}`],
      ['huge body', JSON.stringify({ refId: ref.refId, paymentPayload: 'A'.repeat(200_000) })],
      ['empty', ''],
      ['text/plain', JSON.stringify({ refId: ref.refId, paymentPayload: unsettled }), { 'content-type': 'text/plain' }],
    ];
    const bodies: [string, unknown][] = [
      ['empty object', {}],
      ['no payload', { refId: ref.refId }],
      ['no ref', { paymentPayload: unsettled }],
      ['refId number', { refId: 7, paymentPayload: unsettled }],
      ['refId empty', { refId: '', paymentPayload: unsettled }],
      ['refId huge', { refId: 'r'.repeat(10_000), paymentPayload: unsettled }],
      ['payload number', { refId: ref.refId, paymentPayload: 1 }],
      ['payload null', { refId: ref.refId, paymentPayload: null }],
      ['payload array', { refId: ref.refId, paymentPayload: [valid] }],
      ['payload empty string', { refId: ref.refId, paymentPayload: '' }],
      ['payload too long', { refId: ref.refId, paymentPayload: 'A'.repeat(20_000) }],
      ['base64 junk', { refId: ref.refId, paymentPayload: '!!!not-base64!!!' }],
      ['base64 of text', { refId: ref.refId, paymentPayload: b64('hello, world') }],
      ['base64 of array', { refId: ref.refId, paymentPayload: b64('[1,2,3]') }],
      ['base64 of null', { refId: ref.refId, paymentPayload: b64('null') }],
      ['x402Version 1', { refId: ref.refId, paymentPayload: { ...valid, x402Version: 1 } }],
      ['x402Version 3', { refId: ref.refId, paymentPayload: { ...valid, x402Version: 3 } }],
      ['x402Version "2"', { refId: ref.refId, paymentPayload: { ...valid, x402Version: '2' } }],
      ['scheme upto', { refId: ref.refId, paymentPayload: { ...valid, accepted: { ...accepted, scheme: 'upto' } } }],
      ['other network', { refId: ref.refId, paymentPayload: { ...valid, accepted: { ...accepted, network: 'eip155:1' } } }],
      ['other amount', { refId: ref.refId, paymentPayload: { ...valid, accepted: { ...accepted, amount: '1' } } }],
      ['no accepted', { refId: ref.refId, paymentPayload: { ...valid, accepted: undefined } }],
      ['no authorization', { refId: ref.refId, paymentPayload: { ...valid, payload: { signature: inner.signature } } }],
      ['bad nonce', { refId: ref.refId, paymentPayload: { ...valid, payload: { ...inner, authorization: { ...inner.authorization, nonce: '0x12' } } } }],
      ['negative value', { refId: ref.refId, paymentPayload: { ...valid, payload: { ...inner, authorization: { ...inner.authorization, value: '-10000' } } } }],
      ['bad signature', { refId: ref.refId, paymentPayload: { ...valid, payload: { ...inner, signature: '0xdead' } } }],
      ['other signer', { refId: ref.refId, paymentPayload: { ...valid, payload: { ...inner, signature: `0x${'11'.repeat(65)}` } } }],
      ['bad txHash', { refId: ref.refId, paymentPayload: unsettled, txHash: '0x1234' }],
      ['txHash number', { refId: ref.refId, paymentPayload: unsettled, txHash: 5 }],
      ['fromBlock negative', { refId: ref.refId, paymentPayload: unsettled, fromBlock: -1 }],
      ['fromBlock fraction', { refId: ref.refId, paymentPayload: unsettled, fromBlock: 1.5 }],
      ['fromBlock string', { refId: ref.refId, paymentPayload: unsettled, fromBlock: '5' }],
      ['fromBlock huge', { refId: ref.refId, paymentPayload: unsettled, fromBlock: 1e300 }],
      ['signedOffer string', { refId: ref.refId, paymentPayload: unsettled, signedOffer: 'offer' }],
      ['signedOffer forged', { refId: ref.refId, paymentPayload: unsettled, signedOffer: { payload: {}, signature: '0x00' } }],
      ['unknown field', { refId: ref.refId, paymentPayload: unsettled, extra: true }],
      ['proto key', JSON.parse(`{"refId":"${ref.refId}","paymentPayload":{"__proto__":{"x402Version":2}}}`)],
    ];
    const codes = new Map<string, string>();
    for (const [name, text, headers] of raw) codes.set(name, expectEnvelope(await call(gateway.url, 'POST', '/recover-settlement', { raw: text, ...(headers ? { headers } : {}) })));
    for (const [name, body] of bodies) codes.set(name, expectEnvelope(await recover(gateway.url, body as Record<string, unknown>)));
    expect(codes.get('huge body')).toBe('payload_too_large');
    expect(codes.get('text/plain')).toBe('unsupported_media_type');
    for (const name of ['not JSON', 'JSON null', 'duplicate keys', 'refId number', 'payload array', 'base64 junk', 'fromBlock string', 'unknown field']) expect(codes.get(name), name).toBe('invalid_request');
    for (const name of ['x402Version 1', 'x402Version 3', 'scheme upto', 'other network', 'other amount', 'other signer', 'signedOffer forged']) expect(codes.get(name), name).toBe('payment_verification_failed');
    // A signature that is not 65 bytes may be a smart wallet's, which only a facilitator can check, and
    // recovery has none: the chain's answer (no transfer) is what it can give.
    expect(codes.get('bad signature')).toBe('not_found');

    // Random mutations of the valid payload's JSON, replayable by seed.
    const random = seededRandom(10).next;
    const text = JSON.stringify(valid);
    for (let round = 0; round < 150; round += 1) {
      const chars = [...text];
      for (let edits = 1 + Math.floor(random() * 4); edits > 0; edits -= 1) chars[Math.floor(random() * chars.length)] = String.fromCharCode(32 + Math.floor(random() * 95));
      const mutated = chars.join('');
      let paymentPayload: unknown = b64(mutated);
      try {
        if (random() < 0.5) paymentPayload = JSON.parse(mutated);
      } catch {
        // Not JSON any more: sent as a header value.
      }
      const response = await recover(gateway.url, { refId: ref.refId, paymentPayload });
      // A mutation that leaves the payment intact (whitespace, key order) is a valid "not settled" 404.
      expectEnvelope(response);
    }
    expect(stack.counts.settle).toBe(0);
  });
});

describe('under the merchant policy (GATEWAY_EVIDENCE_ACCESS=merchant)', () => {
  const limit = 10;
  let gateway: TestGateway;
  let sent = 0;
  const asked = (body: Record<string, unknown>, apiKey?: string) => {
    sent += 1;
    return recover(gateway.url, body, apiKey === undefined ? {} : { apiKey });
  };
  beforeAll(async () => {
    gateway = await startEvidenceGateway(stack, { GATEWAY_EVIDENCE_ACCESS: 'merchant', GATEWAY_RATE_LIMIT_RECOVER_SETTLEMENT: `${limit}/86400` }, { clock: new ManualClock(Date.now()) });
  });
  afterAll(() => gateway?.close());

  it('wants an API key, recovers a merchant’s own payments, and answers another merchant’s ref like an unknown one', async () => {
    const ref = await payableRef(gateway);
    const stranger = await registerMerchant(gateway.url, { network: 'local' });
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    const paid = answerBytes(await pay(gateway, ref.path, header));
    expect(paid.status, paid.body).toBe(200);
    stack.resetCounts();
    const body = { refId: ref.refId, paymentPayload: header };
    expectError(await asked(body), 401, 'unauthorized');
    expectError(await asked(body, 'tg_live_notakey'), 401, 'unauthorized');
    const foreign = await asked(body, stranger.apiKey);
    const unknown = await asked({ ...body, refId: 'ref_doesnotexist' }, stranger.apiKey);
    expect(expectError(foreign, 404, 'not_found')).toEqual({ refId: ref.refId });
    expect(expectError(unknown, 404, 'not_found')).toEqual({ refId: 'ref_doesnotexist' });
    expect((foreign.body as { error: { message: string } }).error.message).toBe((unknown.body as { error: { message: string } }).error.message);
    expect(answerBytes(await asked(body, ref.merchant.apiKey))).toEqual(paid);
    expect(stack.counts.settle).toBe(0);
  });

  it('rate-limits per client before the key lookup: 429 rate_limited with Retry-After once the budget is spent', async () => {
    const statuses: number[] = [];
    let limited;
    while (sent < limit + 5) {
      const response = await asked({ refId: 'ref_any', paymentPayload: 'x' });
      if (response.status === 429) {
        limited = response;
        break;
      }
      statuses.push(response.status);
    }
    expect(statuses.every((status) => status === 401)).toBe(true);
    expect(sent).toBe(limit + 1);
    expect(expectError(limited!, 429, 'rate_limited')).toMatchObject({ limit });
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
