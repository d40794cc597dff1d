import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createRef,
  expectError,
  freshAccount,
  registerMerchant,
  requestChallenge,
  startTestGateway,
  type TestGateway,
  type TestMerchant,
} from './helpers/gateway';

let gateway: TestGateway;
let merchant: TestMerchant;

beforeAll(async () => {
  gateway = await startTestGateway({ GATEWAY_PUBLIC_URL: 'https://pay.example.com' });
  merchant = await registerMerchant(gateway.url);
});

afterAll(async () => {
  await gateway?.close();
});

const nowSeconds = () => Math.floor(gateway.clock.now() / 1000);
const refusedField = async (options: Record<string, unknown>) => expectError(await createRef(gateway.url, merchant, options), 400, 'invalid_request')['field'];
const created = async (options: Record<string, unknown>) => {
  const response = await createRef(gateway.url, merchant, options);
  expect(response.status, response.text).toBe(201);
  return response;
};

describe('POST /ref', () => {
  it('creates a fixed-amount ref with its immutable snapshot', async () => {
    const response = await created({ amount: '2500000', invoiceId: 'INV-2026-001', label: 'Pro plan', description: 'One year of Pro.', expiresInSecs: 3600 });
    const refId = response.body['refId'] as string;
    expect(refId).toMatch(/^[0-9a-f]{32}$/);
    expect(response.headers.get('location')).toBe(`/ref/${refId}`);
    expect(response.body).toEqual({
      refId,
      refUrl: `https://pay.example.com/ref/${refId}`,
      snapshot: {
        v: 2,
        scheme: 'exact',
        network: 'base',
        payTo: merchant.payTo,
        asset: 'USDC',
        amount: '2500000',
        resource: `https://pay.example.com/receive/${merchant.payTo}?ref=${refId}`,
        invoiceId: 'INV-2026-001',
        description: 'One year of Pro.',
        mimeType: 'application/json',
        expiresAt: nowSeconds() + 3600,
      },
    });
    const snapshotText = JSON.stringify(response.body['snapshot']);
    expect(response.text).toContain(snapshotText);
    const lookup = await call(gateway.url, 'GET', `/ref/${refId}`);
    expect(lookup.status).toBe(200);
    expect(lookup.body).toEqual({ ...response.body, status: 'active' });
    // Served from the stored text: byte-identical, key order included.
    expect(lookup.text).toContain(`"snapshot":${snapshotText}`);
    expect(lookup.text).not.toContain('Pro plan');
  });

  it('creates an open ref (no amount) with the default 7-day lifetime and a lowercase payTo', async () => {
    const response = await created({ amount: undefined, payTo: merchant.payTo.toLowerCase() });
    const snapshot = response.body['snapshot'] as Record<string, unknown>;
    expect(snapshot).not.toHaveProperty('amount');
    expect(snapshot).not.toHaveProperty('invoiceId');
    expect(snapshot['payTo']).toBe(merchant.payTo);
    expect(snapshot['expiresAt']).toBe(nowSeconds() + 7 * 24 * 3600);
    expect(Object.keys(snapshot)).toEqual(['v', 'scheme', 'network', 'payTo', 'asset', 'resource', 'mimeType', 'expiresAt']);
  });

  it('accepts amounts up to 2^256 - 1 and refuses every other form', async () => {
    await created({ amount: '1' });
    await created({ amount: (2n ** 256n - 1n).toString() });
    for (const amount of ['0', '01', '-1', '+1', '1e6', '1.5', '1.0', ' 1', '0x10', '', (2n ** 256n).toString()]) {
      expect(await refusedField({ amount })).toBe('amount');
    }
    expect(await refusedField({ amount: 10000 })).toBe('amount');
  });

  it('takes USDC only, on supported networks, for a valid address', async () => {
    await created({ asset: 'USDC' });
    expect(await refusedField({ asset: 'USDT' })).toBe('asset');
    expect(await refusedField({ asset: 'usdc' })).toBe('asset');
    expect(await refusedField({ network: 'ethereum' })).toBe('network');
    expect(await refusedField({ payTo: '0x1234' })).toBe('payTo');
    expect(await refusedField({ payTo: merchant.payTo.replace(/[a-f]/, (c) => c.toUpperCase()) })).toBe('payTo');
  });

  it('bounds invoiceId and requires a fixed amount for it', async () => {
    await created({ invoiceId: 'A'.repeat(64) });
    await created({ invoiceId: 'a.b_c:d-9' });
    expect(await refusedField({ invoiceId: 'A'.repeat(65) })).toBe('invoiceId');
    expect(await refusedField({ invoiceId: '' })).toBe('invoiceId');
    expect(await refusedField({ invoiceId: 'INV 1' })).toBe('invoiceId');
    expect(await refusedField({ invoiceId: 'INV/1' })).toBe('invoiceId');
    expect(await refusedField({ invoiceId: 'ÉTÉ-1' })).toBe('invoiceId');
    expect(await refusedField({ amount: undefined, invoiceId: 'OPEN-1' })).toBe('invoiceId');
  });

  it('bounds label at 120 and description at 512 UTF-8 bytes, multi-byte characters included', async () => {
    // 'é' is 2 bytes, '€' 3, '😀' 4 (one code point, two UTF-16 units).
    await created({ label: 'é'.repeat(60) });
    await created({ label: `${'€'.repeat(38)}ab😀` });
    expect(await refusedField({ label: `${'é'.repeat(60)}a` })).toBe('label');
    expect(await refusedField({ label: `${'€'.repeat(39)}😀` })).toBe('label');
    await created({ description: '😀'.repeat(128) });
    await created({ description: `line one\nline two\t${'€'.repeat(164)}ab` });
    await created({ description: `${'€'.repeat(170)}ab` });
    expect(await refusedField({ description: `${'😀'.repeat(128)}a` })).toBe('description');
    expect(await refusedField({ description: `${'€'.repeat(170)}abc` })).toBe('description');
    expect(await refusedField({ label: '' })).toBe('label');
    expect(await refusedField({ label: 'tab\there' })).toBe('label');
    expect(await refusedField({ label: 'nul\u0000' })).toBe('label');
    expect(await refusedField({ description: 'bell\u0007' })).toBe('description');
    expect(await refusedField({ label: 'lone \ud800 surrogate' })).toBe('label');
  });

  it('bounds expiresInSecs to a positive safe integer of at most 365 days', async () => {
    const one = await created({ expiresInSecs: 1 });
    expect((one.body['snapshot'] as { expiresAt: number }).expiresAt).toBe(nowSeconds() + 1);
    await created({ expiresInSecs: 365 * 24 * 3600 });
    for (const expiresInSecs of [0, -1, 1.5, 365 * 24 * 3600 + 1, 2 ** 53, '60', null]) {
      expect(await refusedField({ expiresInSecs })).toBe('expiresInSecs');
    }
  });

  it('accepts a public HTTPS notifyUrl on port 443 only', async () => {
    await created({ notifyUrl: 'https://hooks.example.com/ref-paid' });
    await created({ notifyUrl: 'https://hooks.example.com:443/x' });
    for (const notifyUrl of [
      'http://hooks.example.com/x',
      'https://hooks.example.com:8443/x',
      'https://user:secret@hooks.example.com/x',
      'https://localhost/x',
      'https://app.localhost/x',
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://192.168.0.10/x',
      'https://169.254.169.254/x',
      'https://100.64.0.1/x',
      'https://[::1]/x',
      'https://[fe80::1]/x',
      'https://[fd00::2]/x',
      'https://[::ffff:192.168.0.1]/x',
      'https://intranet/x',
      'not a url',
    ]) {
      expect(await refusedField({ notifyUrl })).toBe('notifyUrl');
    }
  });

  it('refuses unknown fields, malformed JSON, a wrong content type and an oversized body', async () => {
    expect(await refusedField({ amonut: '5' })).toBe('amonut');
    expectError(await call(gateway.url, 'POST', '/ref', { apiKey: merchant.apiKey, raw: '{"payTo": ' }), 400, 'invalid_request');
    expectError(await call(gateway.url, 'POST', '/ref', { apiKey: merchant.apiKey, raw: '{}', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type');
    expectError(await call(gateway.url, 'POST', '/ref', { apiKey: merchant.apiKey, json: { payTo: merchant.payTo, description: 'x'.repeat(9000) } }), 413, 'payload_too_large');
  });

  it('keeps an invoiceId unique among the merchant’s active refs', async () => {
    const first = await created({ invoiceId: 'ORDER-77' });
    const duplicate = expectError(await createRef(gateway.url, merchant, { invoiceId: 'ORDER-77', amount: '1' }), 409, 'conflict');
    expect(duplicate).toEqual({ field: 'invoiceId', refId: first.body['refId'] });
    expect((await call(gateway.url, 'POST', `/ref/${first.body['refId']}/revoke`, { apiKey: merchant.apiKey })).status).toBe(200);
    await created({ invoiceId: 'ORDER-77' });
    const other = await registerMerchant(gateway.url);
    expect((await createRef(gateway.url, other, { invoiceId: 'ORDER-77' })).status).toBe(201);
  });
});

describe('GET /ref/:refId and POST /ref/:refId/revoke', () => {
  it('answers not_found for unknown and malformed ids', async () => {
    expectError(await call(gateway.url, 'GET', `/ref/${'0'.repeat(32)}`), 404, 'not_found');
    expectError(await call(gateway.url, 'GET', '/ref/not-a-ref'), 404, 'not_found');
    expectError(await call(gateway.url, 'POST', `/ref/${'0'.repeat(32)}/revoke`, { apiKey: merchant.apiKey }), 404, 'not_found');
  });

  it('revokes idempotently and shows the status publicly', async () => {
    const ref = await created({});
    const refId = ref.body['refId'] as string;
    const first = await call(gateway.url, 'POST', `/ref/${refId}/revoke`, { apiKey: merchant.apiKey });
    expect(first.body).toEqual({ refId, status: 'revoked', revokedAt: nowSeconds() });
    gateway.clock.advance(5_000);
    expect((await call(gateway.url, 'POST', `/ref/${refId}/revoke`, { apiKey: merchant.apiKey })).body).toEqual(first.body);
    const lookup = await call(gateway.url, 'GET', `/ref/${refId}`);
    expect(lookup.body).toEqual({ ...ref.body, status: 'revoked' });
    expectError(await call(gateway.url, 'POST', `/ref/${refId}/revoke`), 401, 'unauthorized');
  });
});

describe('POST /payto/:payTo/revoke', () => {
  it('retires the payTo for new refs, idempotently, leaving existing refs readable', async () => {
    const owner = await registerMerchant(gateway.url);
    const ref = await createRef(gateway.url, owner);
    const retired = await call(gateway.url, 'POST', `/payto/${owner.payTo.toLowerCase()}/revoke`, { apiKey: owner.apiKey });
    expect(retired.status).toBe(200);
    expect(retired.body).toEqual({ payTo: owner.payTo, status: 'retired', retiredAt: nowSeconds() });
    gateway.clock.advance(1_000);
    expect((await call(gateway.url, 'POST', `/payto/${owner.payTo}/revoke`, { apiKey: owner.apiKey })).body).toEqual(retired.body);
    expectError(await createRef(gateway.url, owner), 410, 'payto_revoked');
    expect((await call(gateway.url, 'GET', `/ref/${ref.body['refId']}`)).body).toMatchObject({ status: 'active' });
    expect((await call(gateway.url, 'GET', `/ref?pay_to=${owner.payTo}`, { apiKey: owner.apiKey })).body).toMatchObject({ items: [{ refId: ref.body['refId'] }] });
    expect((await call(gateway.url, 'GET', '/merchant/me', { apiKey: owner.apiKey })).body).toMatchObject({ payTos: [{ status: 'retired', retiredAt: retired.body['retiredAt'] }] });
    expect(expectError(await call(gateway.url, 'POST', '/payto/0x1234/revoke', { apiKey: owner.apiKey }), 400, 'invalid_request')['field']).toBe('payTo');
  });
});

describe('GET /ref', () => {
  it('lists the payTo’s refs newest first in bounded pages with an opaque cursor', async () => {
    const lister = await registerMerchant(gateway.url);
    const ids: string[] = [];
    for (let index = 0; index < 5; index++) {
      gateway.clock.advance(1_000);
      const response = await createRef(gateway.url, lister, { label: `Ref ${index}`, ...(index === 0 ? { amount: undefined } : { invoiceId: `L-${index}` }) });
      ids.unshift(response.body['refId'] as string);
    }
    await call(gateway.url, 'POST', `/ref/${ids[4]}/revoke`, { apiKey: lister.apiKey });
    const list = (query: string) => call(gateway.url, 'GET', `/ref?pay_to=${lister.payTo}${query}`, { apiKey: lister.apiKey });
    const full = await list('');
    expect(full.body['nextCursor']).toBeUndefined();
    const items = full.body['items'] as Record<string, unknown>[];
    expect(items.map((item) => item['refId'])).toEqual(ids);
    expect(items[0]).toEqual({
      refId: ids[0],
      payTo: lister.payTo,
      network: 'base',
      asset: 'USDC',
      amount: '10000',
      invoiceId: 'L-4',
      label: 'Ref 4',
      createdAt: expect.any(Number),
      expiresAt: expect.any(Number),
      status: 'active',
    });
    expect(items[4]).toEqual({ refId: ids[4], payTo: lister.payTo, network: 'base', asset: 'USDC', label: 'Ref 0', createdAt: expect.any(Number), expiresAt: expect.any(Number), status: 'revoked' });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(`&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...(page.body['items'] as { refId: string }[]).map((item) => item.refId));
      cursor = page.body['nextCursor'] as string | undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(ids);
  });

  it('refuses a tampered cursor, a cursor of another pay_to, and bad limits', async () => {
    const lister = await registerMerchant(gateway.url);
    for (let index = 0; index < 3; index++) await createRef(gateway.url, lister);
    const page = await call(gateway.url, 'GET', `/ref?pay_to=${lister.payTo}&limit=1`, { apiKey: lister.apiKey });
    const cursor = page.body['nextCursor'] as string;
    const flipped = cursor.slice(0, 3) + (cursor[3] === 'A' ? 'B' : 'A') + cursor.slice(4);
    for (const bad of [flipped, `${cursor}x`, cursor.slice(0, -2), 'garbage']) {
      expect(expectError(await call(gateway.url, 'GET', `/ref?pay_to=${lister.payTo}&cursor=${encodeURIComponent(bad)}`, { apiKey: lister.apiKey }), 400, 'invalid_request')['field']).toBe('cursor');
    }
    // The same merchant's other payTo: a valid list of its own, but not with this cursor.
    const other = freshAccount();
    const challenge = await requestChallenge(gateway.url, other.address);
    const signature = await other.signMessage({ message: challenge.body.signingMessage });
    const attach = { challengeId: challenge.body.challengeId, payTo: other.address, network: 'base', label: 'x', signature };
    expect((await call(gateway.url, 'POST', '/merchant/register', { apiKey: lister.apiKey, json: attach })).body).toMatchObject({ attached: true });
    expect((await call(gateway.url, 'GET', `/ref?pay_to=${other.address}`, { apiKey: lister.apiKey })).body).toEqual({ items: [] });
    expectError(await call(gateway.url, 'GET', `/ref?pay_to=${other.address}&cursor=${encodeURIComponent(cursor)}`, { apiKey: lister.apiKey }), 400, 'invalid_request');
    for (const limit of ['0', '101', '-1', 'ten', '1.5', '']) {
      expect(expectError(await call(gateway.url, 'GET', `/ref?pay_to=${lister.payTo}&limit=${limit}`, { apiKey: lister.apiKey }), 400, 'invalid_request')['field']).toBe('limit');
    }
    expect((await call(gateway.url, 'GET', `/ref?pay_to=${lister.payTo}&limit=100`, { apiKey: lister.apiKey })).status).toBe(200);
    expect(expectError(await call(gateway.url, 'GET', '/ref', { apiKey: lister.apiKey }), 400, 'invalid_request')['field']).toBe('pay_to');
    expect(expectError(await call(gateway.url, 'GET', '/ref?pay_to=0x12', { apiKey: lister.apiKey }), 400, 'invalid_request')['field']).toBe('pay_to');
    expectError(await call(gateway.url, 'GET', `/ref?pay_to=${lister.payTo}&limit=1&limit=2`, { apiKey: lister.apiKey }), 400, 'invalid_request');
  });
});

describe('duplicate JSON keys', () => {
  it('refuses POST /ref whose body repeats "amount" (a proxy keeping the first value would see another amount) and creates nothing', async () => {
    const payer = await registerMerchant(gateway.url);
    const raw = `{"payTo":"${payer.payTo}","network":"base","amount":"5","amount":"6","invoiceId":"DUP-1"}`;
    const response = await call(gateway.url, 'POST', '/ref', { apiKey: payer.apiKey, raw });
    expectError(response, 400, 'invalid_request');
    expect((response.body as { error: { message: string } }).error.message).toBe('Duplicate key "amount" in JSON body.');
    expect((await call(gateway.url, 'GET', `/ref?pay_to=${payer.payTo}`, { apiKey: payer.apiKey })).body).toEqual({ items: [] });
    // The same body without the repeat is a valid ref: only the duplicate was refused.
    const accepted = await call(gateway.url, 'POST', '/ref', { apiKey: payer.apiKey, raw: raw.replace('"amount":"5",', '') });
    expect(accepted.status, accepted.text).toBe(201);
  });
});
