import { deriveGatewayKeys } from '@tollgate/core';
import { deriveNotifyHmacKey, renderSigningMessage, type ChallengeMessage } from '@tollgate/core/gateway';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  dataDirFromTemplate,
  expectError,
  freshAccount,
  registerMerchant,
  requestChallenge,
  startTestGateway,
  type TestGateway,
} from './helpers/gateway';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ GATEWAY_PUBLIC_URL: 'https://pay.example.com' });
});

afterAll(async () => {
  await gateway?.close();
});

/** A signed registration body for a fresh challenge (or the parts given). */
async function signedRegistration(options: { account?: ReturnType<typeof freshAccount>; network?: string; webhookUrl?: string } = {}) {
  const account = options.account ?? freshAccount();
  const challenge = await requestChallenge(gateway.url, account.address, options);
  expect(challenge.status).toBe(200);
  const signature = await account.signMessage({ message: challenge.body.signingMessage });
  return {
    account,
    challenge: challenge.body,
    body: {
      challengeId: challenge.body.challengeId,
      payTo: account.address,
      network: options.network ?? 'base',
      label: 'Shop',
      ...(options.webhookUrl ? { webhookUrl: options.webhookUrl } : {}),
      signature,
    },
  };
}

const register = (json: unknown, apiKey?: string) => call(gateway.url, 'POST', '/merchant/register', { json, ...(apiKey ? { apiKey } : {}) });

describe('POST /merchant/challenge', () => {
  it('binds origin, action, checksummed payTo, network, webhook hash, nonce and a 5-minute expiry', async () => {
    const account = freshAccount();
    const response = await requestChallenge(gateway.url, account.address.toLowerCase(), { webhookUrl: 'https://hooks.example.com/tollgate' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const { challengeId, message, signingMessage } = response.body;
    expect(message).toEqual({
      challengeId,
      origin: 'https://pay.example.com',
      action: 'merchant.register',
      payTo: account.address,
      network: 'base',
      chainId: 'eip155:8453',
      webhookSha256: '3c6adf24d4772c63692dd40c0d9b89812ca347f42c22f12c2b61e0b3ff4afbb9',
      nonce: expect.stringMatching(/^[0-9a-f]{32}$/),
      issuedAt: '2026-03-01T12:00:00Z',
      expiresAt: '2026-03-01T12:05:00Z',
    });
    expect(challengeId).toMatch(/^[0-9a-f]{32}$/);
    expect(signingMessage).toBe(renderSigningMessage(message as unknown as ChallengeMessage));
    expect(signingMessage).toContain(`\nPay-To: ${account.address}\nNetwork: base (eip155:8453)\n`);
    const again = await requestChallenge(gateway.url, account.address);
    expect(again.body.message['nonce']).not.toBe(message['nonce']);
    expect(again.body.message['webhookSha256']).toBeNull();
  });

  it.each([
    [{ payTo: '0x1234', network: 'base', action: 'merchant.register' }, 'payTo'],
    [{ payTo: '0x90F79bf6EB2c4f870365E785982E1f101E93b907', network: 'base', action: 'merchant.register' }, 'payTo'],
    [{ payTo: '0x90f79bf6eb2c4f870365e785982e1f101e93b906', network: 'solana', action: 'merchant.register' }, 'network'],
    [{ payTo: '0x90f79bf6eb2c4f870365e785982e1f101e93b906', network: 'base', action: 'merchant.login' }, 'action'],
    [{ payTo: '0x90f79bf6eb2c4f870365e785982e1f101e93b906', network: 'base' }, 'action'],
    [{ payTo: '0x90f79bf6eb2c4f870365e785982e1f101e93b906', network: 'base', action: 'merchant.register', webhookUrl: 'http://hooks.example.com/x' }, 'webhookUrl'],
    [{ payTo: '0x90f79bf6eb2c4f870365e785982e1f101e93b906', network: 'base', action: 'merchant.register', webhookUrl: 'https://hooks.example.com:8443/x' }, 'webhookUrl'],
    [{ payTo: '0x90f79bf6eb2c4f870365e785982e1f101e93b906', network: 'base', action: 'merchant.register', webhookUrl: 'https://localhost/x' }, 'webhookUrl'],
    [{ payTo: '0x90f79bf6eb2c4f870365e785982e1f101e93b906', network: 'base', action: 'merchant.register', webhookUrl: 'https://[::ffff:10.0.0.1]/x' }, 'webhookUrl'],
    [{ payTo: '0x90f79bf6eb2c4f870365e785982e1f101e93b906', network: 'base', action: 'merchant.register', extra: 1 }, 'extra'],
    [42, ''],
    [['not', 'an', 'object'], 'payTo'],
  ])('refuses %j (field %s) with invalid_request', async (json, field) => {
    const details = expectError(await call(gateway.url, 'POST', '/merchant/challenge', { json }), 400, 'invalid_request');
    expect(details['field']).toBe(field);
  });

  it('refuses malformed JSON, a wrong content type, a missing body and an oversized body', async () => {
    expectError(await call(gateway.url, 'POST', '/merchant/challenge', { raw: '{"payTo":' }), 400, 'invalid_request');
    expectError(await call(gateway.url, 'POST', '/merchant/challenge', { raw: '{}', headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_media_type');
    expectError(await call(gateway.url, 'POST', '/merchant/challenge'), 400, 'invalid_request');
    expectError(await call(gateway.url, 'POST', '/merchant/challenge', { json: { payTo: 'x'.repeat(5000) } }), 413, 'payload_too_large');
    expectError(await call(gateway.url, 'GET', '/merchant/challenge'), 405, 'method_not_allowed');
  });
});

describe('POST /merchant/register', () => {
  it('registers a new payTo and returns the credentials once', async () => {
    const { account, body } = await signedRegistration({ webhookUrl: 'https://hooks.example.com/tollgate' });
    const response = await register(body);
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      merchantId: expect.stringMatching(/^[0-9a-f]{32}$/),
      payTo: account.address,
      network: 'base',
      apiKey: expect.stringMatching(/^tg_live_[A-Za-z0-9_-]{43}$/),
      apiKeyId: expect.stringMatching(/^[0-9a-f]{16}$/),
      notifyHmacKey: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      notifyHmacKeyId: expect.stringMatching(/^[0-9a-f]{16}$/),
      recovered: false,
    });
    const { merchantId, notifyHmacKeyId, notifyHmacKey, apiKey } = response.body as Record<string, string>;
    // The notify key is derived from the server secret, never stored.
    expect(notifyHmacKey).toBe(deriveNotifyHmacKey(deriveGatewayKeys(gateway.secret).notifyRoot, merchantId as string, notifyHmacKeyId as string));
    const me = await call(gateway.url, 'GET', '/merchant/me', { apiKey });
    expect(me.body).toMatchObject({ merchantId, label: 'Shop', webhookUrl: 'https://hooks.example.com/tollgate', payTos: [{ payTo: account.address, status: 'active', proof: 'eoa' }] });
  });

  it('accepts a lowercase payTo and a 120-byte label; refuses a 121-byte label', async () => {
    const ok = await signedRegistration();
    const label = 'é'.repeat(60);
    expect((await register({ ...ok.body, payTo: ok.account.address.toLowerCase(), label })).status).toBe(201);
    const tooLong = await signedRegistration();
    expect(expectError(await register({ ...tooLong.body, label: `${label}x` }), 400, 'invalid_request')['field']).toBe('label');
    expect((await register(tooLong.body)).status).toBe(201);
  });

  it('refuses an expired challenge and accepts one a second before it expires', async () => {
    // The clock only moves forward here: the rate limiter, like any GCRA, assumes time does not go back.
    const expiring = await signedRegistration();
    gateway.clock.advance(1_000);
    const fresh = await signedRegistration();
    gateway.clock.advance(299_000);
    expect(expectError(await register(expiring.body), 400, 'invalid_request')['reason']).toBe('challenge_expired');
    expect((await register(fresh.body)).status).toBe(201);
  });

  it('refuses a reused challenge', async () => {
    const { body } = await signedRegistration();
    expect((await register(body)).status).toBe(201);
    expect(expectError(await register(body), 400, 'invalid_request')['reason']).toBe('challenge_used');
  });

  it('refuses a signature by another key, and a malformed one', async () => {
    const { body, challenge } = await signedRegistration();
    const other = await freshAccount().signMessage({ message: challenge.signingMessage });
    const details = expectError(await register({ ...body, signature: other }), 401, 'unauthorized');
    expect(details['field']).toBe('signature');
    expect(expectError(await register({ ...body, signature: '0x1234' }), 401, 'unauthorized')['field']).toBe('signature');
    expect(expectError(await register({ ...body, signature: 'deadbeef' }), 400, 'invalid_request')['field']).toBe('signature');
    // Up to 4096 bytes (long ERC-6492 signatures) reach verification; one byte more is refused as input.
    expect(expectError(await register({ ...body, signature: `0x${'ab'.repeat(4096)}` }), 401, 'unauthorized')['field']).toBe('signature');
    expect(expectError(await register({ ...body, signature: `0x${'ab'.repeat(4097)}` }), 400, 'invalid_request')['field']).toBe('signature');
    // A refused signature does not spend the challenge.
    expect((await register(body)).status).toBe(201);
  });

  it('refuses a payTo, network or webhook URL changed since the challenge', async () => {
    const { body } = await signedRegistration({ webhookUrl: 'https://hooks.example.com/a' });
    expect(expectError(await register({ ...body, payTo: freshAccount().address }), 400, 'invalid_request')).toMatchObject({ field: 'payTo', reason: 'payto_mismatch' });
    expect(expectError(await register({ ...body, network: 'base-sepolia' }), 400, 'invalid_request')).toMatchObject({ field: 'network', reason: 'network_mismatch' });
    expect(expectError(await register({ ...body, webhookUrl: 'https://hooks.example.com/b' }), 400, 'invalid_request')).toMatchObject({ field: 'webhookUrl' });
    const { webhookUrl: _dropped, ...withoutWebhook } = body as typeof body & { webhookUrl?: string };
    expect(expectError(await register(withoutWebhook), 400, 'invalid_request')).toMatchObject({ field: 'webhookUrl' });
    expect((await register(body)).status).toBe(201);
  });

  it('refuses an unknown challenge and an unknown field', async () => {
    const { body } = await signedRegistration();
    expect(expectError(await register({ ...body, challengeId: '0'.repeat(32) }), 400, 'invalid_request')['reason']).toBe('challenge_unknown');
    expect(expectError(await register({ ...body, challengeId: 'nope' }), 400, 'invalid_request')['field']).toBe('challengeId');
    expect(expectError(await register({ ...body, admin: true }), 400, 'invalid_request')['field']).toBe('admin');
  });

  it('lets exactly one of 20 parallel registrations with one challenge succeed', async () => {
    const { body } = await signedRegistration();
    const responses = await Promise.all(Array.from({ length: 20 }, () => register(body)));
    expect(responses.map((response) => response.status).sort()).toEqual([201, ...Array<number>(19).fill(400)]);
    for (const response of responses.filter((r) => r.status === 400)) expect(expectError(response, 400, 'invalid_request')['reason']).toBe('challenge_used');
  });

  it('recovers the credentials of an already registered payTo: same merchant, new keys, old API keys revoked', async () => {
    const first = await registerMerchant(gateway.url);
    gateway.clock.advance(1_000);
    const again = await signedRegistration({ account: first.account });
    const response = await register({ ...again.body, label: 'Recovered shop' });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ merchantId: first.merchantId, payTo: first.payTo, recovered: true });
    expect(response.body['apiKey']).not.toBe(first.apiKey);
    expect(response.body['notifyHmacKeyId']).not.toBe(first.notifyHmacKeyId);
    expectError(await call(gateway.url, 'GET', '/merchant/me', { apiKey: first.apiKey }), 401, 'unauthorized');
    const me = await call(gateway.url, 'GET', '/merchant/me', { apiKey: response.body['apiKey'] as string });
    expect(me.body).toMatchObject({
      merchantId: first.merchantId,
      label: 'Recovered shop',
      apiKeys: [{ keyId: response.body['apiKeyId'], status: 'current' }],
      notifyHmacKeys: [
        { keyId: first.notifyHmacKeyId, status: 'previous' },
        { keyId: response.body['notifyHmacKeyId'], status: 'current' },
      ],
    });
  });

  it('attaches another payTo to the caller when a bearer key is sent; never one owned by another merchant', async () => {
    const owner = await registerMerchant(gateway.url);
    const second = await signedRegistration();
    gateway.clock.advance(1_000);
    const attached = await register(second.body, owner.apiKey);
    expect(attached.status).toBe(200);
    expect(attached.body).toEqual({ merchantId: owner.merchantId, payTo: second.account.address, network: 'base', attached: true });
    const me = await call(gateway.url, 'GET', '/merchant/me', { apiKey: owner.apiKey });
    expect((me.body['payTos'] as { payTo: string }[]).map((payTo) => payTo.payTo)).toEqual([owner.payTo, second.account.address]);
    const other = await registerMerchant(gateway.url);
    const stolen = await signedRegistration({ account: other.account });
    expectError(await register(stolen.body, owner.apiKey), 409, 'conflict');
    expectError(await register((await signedRegistration()).body, 'tg_live_' + 'A'.repeat(43)), 401, 'unauthorized');
  });

  it('never registers a retired payTo again', async () => {
    const merchant = await registerMerchant(gateway.url);
    expect((await call(gateway.url, 'POST', `/payto/${merchant.payTo}/revoke`, { apiKey: merchant.apiKey })).status).toBe(200);
    const again = await signedRegistration({ account: merchant.account });
    expectError(await register(again.body), 410, 'payto_revoked');
  });
});

describe('origin binding', () => {
  it('refuses a challenge issued under another public URL', async () => {
    const dataDir = await dataDirFromTemplate();
    const other = await startTestGateway({ GATEWAY_PUBLIC_URL: 'https://other.example.com' }, { dataDir });
    try {
      const account = freshAccount();
      const challenge = await requestChallenge(other.url, account.address);
      const signature = await account.signMessage({ message: challenge.body.signingMessage });
      const body = { challengeId: challenge.body.challengeId, payTo: account.address, network: 'base', label: 'Shop', signature };
      await other.close();
      // Same database, restarted under another public URL: the signed origin no longer matches.
      const restarted = await startTestGateway({ GATEWAY_PUBLIC_URL: 'https://pay.example.com' }, { dataDir, secret: other.secret });
      try {
        expect(expectError(await call(restarted.url, 'POST', '/merchant/register', { json: body }), 400, 'invalid_request')['reason']).toBe('origin_mismatch');
      } finally {
        await restarted.close();
      }
    } finally {
      await other.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
