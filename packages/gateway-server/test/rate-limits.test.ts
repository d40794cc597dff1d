import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createRef, expectError, freshAccount, registerMerchant, startTestGateway, type TestGateway } from './helpers/gateway';

// One proxy hop is trusted, so each test can act as its own client address through X-Forwarded-For.
let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({
    GATEWAY_TRUST_PROXY: '1',
    GATEWAY_RATE_LIMIT_CHALLENGE: '2/60',
    GATEWAY_RATE_LIMIT_REGISTER: '2/60',
    GATEWAY_RATE_LIMIT_REF_LOOKUP: '3/60',
    GATEWAY_RATE_LIMIT_RECEIVE: '2/60',
  });
});

afterAll(async () => {
  await gateway?.close();
});

const challenge = (client: string) =>
  call(gateway.url, 'POST', '/merchant/challenge', {
    json: { payTo: freshAccount().address, network: 'base', action: 'merchant.register' },
    headers: { 'x-forwarded-for': client },
  });

describe('rate limits on the public routes', () => {
  it('limits challenges per client with rate_limited and Retry-After, then refills', async () => {
    expect((await challenge('203.0.113.10')).status).toBe(200);
    expect((await challenge('203.0.113.10')).status).toBe(200);
    const limited = await challenge('203.0.113.10');
    expect(expectError(limited, 429, 'rate_limited')).toEqual({ retryAfterSeconds: 30, limit: 2, windowSeconds: 60 });
    expect(limited.headers.get('retry-after')).toBe('30');
    // Another client has its own budget.
    expect((await challenge('203.0.113.11')).status).toBe(200);
    gateway.clock.advance(29_000);
    expect(expectError(await challenge('203.0.113.10'), 429, 'rate_limited')['retryAfterSeconds']).toBe(1);
    gateway.clock.advance(1_000);
    expect((await challenge('203.0.113.10')).status).toBe(200);
  });

  it('limits registrations, counting refused attempts too, separately from challenges', async () => {
    const client = '203.0.113.20';
    const headers = { 'x-forwarded-for': client };
    for (let attempt = 0; attempt < 2; attempt++) {
      expectError(await call(gateway.url, 'POST', '/merchant/register', { json: {}, headers }), 400, 'invalid_request');
    }
    const limited = await call(gateway.url, 'POST', '/merchant/register', { json: {}, headers });
    expectError(limited, 429, 'rate_limited');
    expect(limited.headers.get('retry-after')).toBe('30');
    expect((await challenge(client)).status).toBe(200);
  });

  it('limits public ref lookups, but not the bearer routes', async () => {
    const merchant = await registerMerchant(gateway.url);
    const refId = (await createRef(gateway.url, merchant)).body['refId'] as string;
    const headers = { 'x-forwarded-for': '203.0.113.30' };
    for (let attempt = 0; attempt < 3; attempt++) expect((await call(gateway.url, 'GET', `/ref/${refId}`, { headers })).status).toBe(200);
    expect(expectError(await call(gateway.url, 'GET', `/ref/${'0'.repeat(32)}`, { headers }), 429, 'rate_limited')['limit']).toBe(3);
    for (let attempt = 0; attempt < 10; attempt++) {
      expect((await call(gateway.url, 'GET', '/merchant/me', { apiKey: merchant.apiKey, headers })).status).toBe(200);
    }
  });

  it('limits /receive per client, 402s and payments together, but never browser preflights', async () => {
    const merchant = await registerMerchant(gateway.url);
    const refId = (await createRef(gateway.url, merchant)).body['refId'] as string;
    const path = `/receive/${merchant.payTo}?ref=${refId}`;
    const client = { 'x-forwarded-for': '203.0.113.40', origin: 'https://shop.example' };
    expectError(await call(gateway.url, 'GET', path, { headers: client }), 402, 'payment_required');
    expectError(await call(gateway.url, 'GET', path, { headers: { ...client, 'payment-signature': '%%%' } }), 400, 'invalid_request');
    const limited = await call(gateway.url, 'GET', path, { headers: client });
    expect(expectError(limited, 429, 'rate_limited')).toEqual({ retryAfterSeconds: 30, limit: 2, windowSeconds: 60 });
    expect(limited.headers.get('retry-after')).toBe('30');
    // The 429 is readable by the paying page.
    expect(limited.headers.get('access-control-allow-origin')).toBe('*');
    const preflight = await fetch(`${gateway.url}${path}`, {
      method: 'OPTIONS',
      headers: { ...client, 'access-control-request-method': 'GET', 'access-control-request-headers': 'payment-signature' },
    });
    expect(preflight.status).toBe(204);
    expectError(await call(gateway.url, 'GET', path, { headers: { 'x-forwarded-for': '203.0.113.41' } }), 402, 'payment_required');
  });

  it('ignores X-Forwarded-For unless a proxy is trusted', async () => {
    const direct = await startTestGateway({ GATEWAY_RATE_LIMIT_REF_LOOKUP: '1/60' });
    try {
      const lookup = (client: string) => call(direct.url, 'GET', `/ref/${'0'.repeat(32)}`, { headers: { 'x-forwarded-for': client } });
      expectError(await lookup('198.51.100.1'), 404, 'not_found');
      expectError(await lookup('198.51.100.2'), 429, 'rate_limited');
    } finally {
      await direct.close();
    }
  });
});
