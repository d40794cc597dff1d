import { deriveGatewayKeys } from '@tollgate/core';
import { deriveNotifyHmacKey } from '@tollgate/core/gateway';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, registerMerchant, startTestGateway, type TestGateway } from './helpers/gateway';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
});

const me = (apiKey?: string, headers: Record<string, string> = {}) => call(gateway.url, 'GET', '/merchant/me', { ...(apiKey ? { apiKey } : {}), headers });
const rotate = (apiKey: string, credential: unknown) => call(gateway.url, 'POST', '/merchant/rotate-key', { apiKey, json: { credential } });
const revoke = (apiKey: string, credential: unknown) => call(gateway.url, 'POST', '/merchant/revoke-key', { apiKey, json: { credential } });

describe('bearer authentication', () => {
  it('refuses a missing, malformed, unknown or wrong-scheme key with 401 and WWW-Authenticate', async () => {
    const merchant = await registerMerchant(gateway.url);
    const refusals = [
      await me(),
      await me(undefined, { authorization: merchant.apiKey }),
      await me(undefined, { authorization: `Basic ${merchant.apiKey}` }),
      await me(undefined, { authorization: 'Bearer' }),
      await me('tg_live_short'),
      await me(`tg_live_${'A'.repeat(43)}`),
      await me(`${merchant.apiKey}x`),
    ];
    for (const response of refusals) {
      expectError(response, 401, 'unauthorized');
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="tollgate-gateway"');
      expect(response.text).not.toContain(merchant.apiKey);
    }
    expect((await me(undefined, { authorization: `bearer   ${merchant.apiKey}` })).status).toBe(200);
  });

  it.each([
    ['GET', '/merchant/me'],
    ['POST', '/merchant/rotate-key'],
    ['POST', '/merchant/revoke-key'],
    ['POST', '/ref'],
    ['GET', '/ref?pay_to=0x90F79bf6EB2c4f870365E785982E1f101E93b906'],
    ['POST', `/ref/${'0'.repeat(32)}/revoke`],
    ['POST', '/payto/0x90F79bf6EB2c4f870365E785982E1f101E93b906/revoke'],
  ])('%s %s needs a bearer key', async (method, path) => {
    const response = await call(gateway.url, method, path, method === 'POST' ? { json: { credential: 'api' } } : {});
    expectError(response, 401, 'unauthorized');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="tollgate-gateway"');
  });

  it('checks the key before reading the body', async () => {
    const response = await call(gateway.url, 'POST', '/ref', { raw: '{not json', apiKey: `tg_live_${'B'.repeat(43)}` });
    expectError(response, 401, 'unauthorized');
  });
});

describe('GET /merchant/me', () => {
  it('shows the profile with key ids and times, never a secret', async () => {
    const merchant = await registerMerchant(gateway.url, { label: 'Profile shop', webhookUrl: 'https://hooks.example.com/p' });
    const response = await me(merchant.apiKey);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const now = Math.floor(gateway.clock.now() / 1000);
    expect(response.body).toEqual({
      merchantId: merchant.merchantId,
      label: 'Profile shop',
      webhookUrl: 'https://hooks.example.com/p',
      createdAt: now,
      payTos: [{ payTo: merchant.payTo, status: 'active', network: 'base', proof: 'eoa', registeredAt: now, retiredAt: null }],
      apiKeys: [{ keyId: merchant.apiKeyId, status: 'current', createdAt: now }],
      notifyHmacKeys: [{ keyId: merchant.notifyHmacKeyId, status: 'current', createdAt: now }],
    });
    expect(response.text).not.toContain(merchant.apiKey);
    expect(response.text).not.toContain(merchant.notifyHmacKey);
  });
});

describe('key rotation', () => {
  it('rotates the API key: the old one keeps working until revoke-key, then is refused', async () => {
    const merchant = await registerMerchant(gateway.url);
    const rotated = await rotate(merchant.apiKey, 'api');
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({
      credential: 'api',
      apiKey: expect.stringMatching(/^tg_live_[A-Za-z0-9_-]{43}$/),
      apiKeyId: expect.stringMatching(/^[0-9a-f]{16}$/),
      previousKeyId: merchant.apiKeyId,
    });
    const newKey = rotated.body['apiKey'] as string;
    expect((await me(merchant.apiKey)).status).toBe(200);
    expect((await me(newKey)).body['apiKeys']).toEqual([
      { keyId: merchant.apiKeyId, status: 'previous', createdAt: expect.any(Number) },
      { keyId: rotated.body['apiKeyId'], status: 'current', createdAt: expect.any(Number) },
    ]);
    // A second rotation while the previous key is live would silently kill a deploy still using it.
    expect(expectError(await rotate(newKey, 'api'), 409, 'conflict')).toMatchObject({ credential: 'api', previousKeyId: merchant.apiKeyId });
    expect((await revoke(newKey, 'api')).body).toEqual({ credential: 'api', revokedKeyId: merchant.apiKeyId });
    expectError(await me(merchant.apiKey), 401, 'unauthorized');
    expect((await me(newKey)).status).toBe(200);
    // Nothing left to revoke: idempotent, and the current key is never touched.
    expect((await revoke(newKey, 'api')).body).toEqual({ credential: 'api', revokedKeyId: null });
    expect((await me(newKey)).status).toBe(200);
    expect((await rotate(newKey, 'api')).status).toBe(200);
  });

  it('lets the previous key revoke itself, never the current one', async () => {
    const merchant = await registerMerchant(gateway.url);
    const rotated = await rotate(merchant.apiKey, 'api');
    expect((await revoke(merchant.apiKey, 'api')).body).toEqual({ credential: 'api', revokedKeyId: merchant.apiKeyId });
    expectError(await revoke(merchant.apiKey, 'api'), 401, 'unauthorized');
    expect((await me(rotated.body['apiKey'] as string)).status).toBe(200);
  });

  it('rotates the notify key to a new derived key and revokes the previous one', async () => {
    const merchant = await registerMerchant(gateway.url);
    const rotated = await rotate(merchant.apiKey, 'notify');
    expect(rotated.body).toEqual({
      credential: 'notify',
      notifyHmacKey: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      notifyHmacKeyId: expect.stringMatching(/^[0-9a-f]{16}$/),
      previousKeyId: merchant.notifyHmacKeyId,
    });
    const root = deriveGatewayKeys(gateway.secret).notifyRoot;
    expect(rotated.body['notifyHmacKey']).toBe(deriveNotifyHmacKey(root, merchant.merchantId, rotated.body['notifyHmacKeyId'] as string));
    expect(rotated.body['notifyHmacKey']).not.toBe(merchant.notifyHmacKey);
    expect((await me(merchant.apiKey)).body['notifyHmacKeys']).toEqual([
      { keyId: merchant.notifyHmacKeyId, status: 'previous', createdAt: expect.any(Number) },
      { keyId: rotated.body['notifyHmacKeyId'], status: 'current', createdAt: expect.any(Number) },
    ]);
    expectError(await rotate(merchant.apiKey, 'notify'), 409, 'conflict');
    expect((await revoke(merchant.apiKey, 'notify')).body).toEqual({ credential: 'notify', revokedKeyId: merchant.notifyHmacKeyId });
    expect((await me(merchant.apiKey)).body['notifyHmacKeys']).toEqual([{ keyId: rotated.body['notifyHmacKeyId'], status: 'current', createdAt: expect.any(Number) }]);
  });

  it('refuses an unknown credential kind, a missing body and an unknown field', async () => {
    const merchant = await registerMerchant(gateway.url);
    expect(expectError(await rotate(merchant.apiKey, 'admin'), 400, 'invalid_request')['field']).toBe('credential');
    expect(expectError(await revoke(merchant.apiKey, undefined), 400, 'invalid_request')['field']).toBe('credential');
    expectError(await call(gateway.url, 'POST', '/merchant/rotate-key', { apiKey: merchant.apiKey }), 400, 'invalid_request');
    expect(expectError(await call(gateway.url, 'POST', '/merchant/rotate-key', { apiKey: merchant.apiKey, json: { credential: 'api', all: true } }), 400, 'invalid_request')['field']).toBe('all');
    expectError(await call(gateway.url, 'POST', '/merchant/rotate-key', { apiKey: merchant.apiKey, raw: JSON.stringify({ credential: 'api', pad: 'x'.repeat(2000) }) }), 413, 'payload_too_large');
  });
});
