import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createRef, expectError, registerMerchant, startTestGateway, type TestGateway, type TestMerchant } from './helpers/gateway';

// Every merchant-scoped route answers another merchant's ref or payTo exactly like a missing one
// (not_found), so existence is never revealed; the owner's data is unchanged afterwards.
let gateway: TestGateway;
let alice: TestMerchant;
let bob: TestMerchant;
let aliceRefId: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  alice = await registerMerchant(gateway.url, { label: 'Alice' });
  bob = await registerMerchant(gateway.url, { label: 'Bob' });
  aliceRefId = (await createRef(gateway.url, alice, { invoiceId: 'A-1', label: 'private label', notifyUrl: 'https://alice.example.com/n' })).body['refId'] as string;
  await createRef(gateway.url, alice, { invoiceId: 'A-2' });
  await createRef(gateway.url, alice, { invoiceId: 'A-3' });
});

afterAll(async () => {
  await gateway?.close();
});

describe('tenant isolation', () => {
  it('POST /ref: another merchant’s payTo is not_found', async () => {
    const details = expectError(await createRef(gateway.url, { apiKey: bob.apiKey, payTo: alice.payTo }), 404, 'not_found');
    expect(details['field']).toBe('payTo');
    const unknown = expectError(await createRef(gateway.url, { apiKey: bob.apiKey, payTo: '0x000000000000000000000000000000000000dEaD' }), 404, 'not_found');
    expect(unknown).toEqual({ ...details, payTo: '0x000000000000000000000000000000000000dEaD' });
  });

  it('GET /ref: another merchant’s payTo is not_found, with or without a cursor of theirs', async () => {
    expectError(await call(gateway.url, 'GET', `/ref?pay_to=${alice.payTo}`, { apiKey: bob.apiKey }), 404, 'not_found');
    const page = await call(gateway.url, 'GET', `/ref?pay_to=${alice.payTo}&limit=1`, { apiKey: alice.apiKey });
    const cursor = encodeURIComponent(page.body['nextCursor'] as string);
    expectError(await call(gateway.url, 'GET', `/ref?pay_to=${alice.payTo}&cursor=${cursor}`, { apiKey: bob.apiKey }), 404, 'not_found');
    expectError(await call(gateway.url, 'GET', `/ref?pay_to=${bob.payTo}&cursor=${cursor}`, { apiKey: bob.apiKey }), 400, 'invalid_request');
    expect((await call(gateway.url, 'GET', `/ref?pay_to=${bob.payTo}`, { apiKey: bob.apiKey })).body).toEqual({ items: [] });
  });

  it('POST /ref/:refId/revoke: another merchant’s ref is not_found and stays active', async () => {
    const refused = expectError(await call(gateway.url, 'POST', `/ref/${aliceRefId}/revoke`, { apiKey: bob.apiKey }), 404, 'not_found');
    const missing = expectError(await call(gateway.url, 'POST', `/ref/${'f'.repeat(32)}/revoke`, { apiKey: bob.apiKey }), 404, 'not_found');
    expect(refused).toEqual(missing);
    expect((await call(gateway.url, 'GET', `/ref/${aliceRefId}`)).body).toMatchObject({ status: 'active' });
  });

  it('POST /payto/:payTo/revoke: another merchant’s payTo is not_found and stays active', async () => {
    expectError(await call(gateway.url, 'POST', `/payto/${alice.payTo}/revoke`, { apiKey: bob.apiKey }), 404, 'not_found');
    expect((await createRef(gateway.url, alice)).status).toBe(201);
    expect((await call(gateway.url, 'GET', '/merchant/me', { apiKey: alice.apiKey })).body).toMatchObject({ payTos: [{ payTo: alice.payTo, status: 'active' }] });
  });

  it('GET /ref/:refId: the public view never shows the private label or notify URL', async () => {
    const response = await call(gateway.url, 'GET', `/ref/${aliceRefId}`, { apiKey: bob.apiKey });
    expect(response.status).toBe(200);
    expect(response.text).not.toContain('private label');
    expect(response.text).not.toContain('alice.example.com');
    expect(Object.keys(response.body)).toEqual(['refId', 'refUrl', 'snapshot', 'status']);
  });

  it('GET /merchant/me and the key routes only ever see and change the caller’s own merchant', async () => {
    const me = await call(gateway.url, 'GET', '/merchant/me', { apiKey: bob.apiKey });
    expect(me.body).toMatchObject({ merchantId: bob.merchantId, label: 'Bob', payTos: [{ payTo: bob.payTo }] });
    expect(me.text).not.toContain(alice.payTo);
    const rotated = await call(gateway.url, 'POST', '/merchant/rotate-key', { apiKey: bob.apiKey, json: { credential: 'api' } });
    expect(rotated.body['previousKeyId']).toBe(bob.apiKeyId);
    await call(gateway.url, 'POST', '/merchant/revoke-key', { apiKey: bob.apiKey, json: { credential: 'api' } });
    bob.apiKey = rotated.body['apiKey'] as string;
    expect((await call(gateway.url, 'GET', '/merchant/me', { apiKey: alice.apiKey })).body).toMatchObject({ apiKeys: [{ keyId: alice.apiKeyId, status: 'current' }] });
  });

  it('invoice ids are per merchant: the same id in two tenants never conflicts or leaks', async () => {
    const response = await createRef(gateway.url, { apiKey: bob.apiKey, payTo: bob.payTo }, { invoiceId: 'A-1' });
    expect(response.status).toBe(201);
    expect(response.text).not.toContain(aliceRefId);
  });
});
