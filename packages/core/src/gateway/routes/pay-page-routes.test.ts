import { describe, expect, it } from 'vitest';
import { base64Encode } from '../../crypto/base64';
import { sha256 } from '../../crypto/hash';
import { hexEncode } from '../../crypto/hex';
import { utf8Encode } from '../../crypto/utf8';
import { renderGatewayError } from '../../errors/render';
import { defineRoutes } from '../../http/routes';
import { toFetchHandler } from '../../http/fetch-adapter';
import { createMemoryRateLimiter } from '../../storage/rate-limit/memory-rate-limiter';
import { ManualClock } from '../../time/clock';
import { createNetworkRegistry } from '../networks';
import type { RefSnapshot } from '../refs/ref-service';
import type { PaymentTarget } from '../store/payment-records';
import type { PayToStatus, RefRecord, RefStatus } from '../store/records';
import { payPageRoutes, type PayPageRouteDeps } from './pay-page-routes';

const now = Date.UTC(2026, 2, 1, 12, 0, 0);
const payTo = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const ids = { fixed: 'a'.repeat(32), open: 'b'.repeat(32), revoked: 'c'.repeat(32), expired: 'd'.repeat(32), retired: 'e'.repeat(32), gone: 'f'.repeat(32), local: '0'.repeat(32), refund: '1'.repeat(32) };

function target(id: string, options: { amount?: string; network?: string; status?: RefStatus; payToStatus?: PayToStatus; expiresAt?: number; description?: string; refundOf?: string } = {}): PaymentTarget {
  const expiresAt = options.expiresAt ?? now / 1000 + 3600;
  const network = options.network ?? 'base';
  const snapshot: RefSnapshot = {
    v: 2,
    scheme: 'exact',
    network,
    payTo,
    asset: 'USDC',
    ...(options.amount === undefined ? {} : { amount: options.amount }),
    resource: `https://pay.example.com/receive/${payTo}?ref=${id}`,
    ...(options.description === undefined ? {} : { description: options.description }),
    mimeType: 'application/json',
    expiresAt,
  };
  const ref: RefRecord = {
    id,
    kind: options.refundOf === undefined ? 'payment' : 'refund',
    refundOf: options.refundOf ?? null,
    refundFrom: options.refundOf === undefined ? null : '0x0000000000000000000000000000000000000002',
    merchantId: 'm',
    payTo,
    network,
    asset: 'USDC',
    amount: options.amount ?? null,
    invoiceId: null,
    label: null,
    notifyUrl: null,
    snapshotJson: JSON.stringify(snapshot),
    status: options.status ?? 'active',
    createdAt: new Date(now - 1000),
    expiresAt: new Date(expiresAt * 1000),
    revokedAt: options.status === 'revoked' ? new Date(now) : null,
  };
  return { ref, payToStatus: options.payToStatus ?? 'active' };
}

const targets = new Map<string, PaymentTarget>([
  [ids.fixed, target(ids.fixed, { amount: '2500000', description: 'Pro plan </p><script>alert(1)</script>' })],
  [ids.open, target(ids.open)],
  [ids.revoked, target(ids.revoked, { amount: '1', status: 'revoked' })],
  [ids.expired, target(ids.expired, { amount: '1', status: 'revoked', expiresAt: now / 1000 })],
  [ids.retired, target(ids.retired, { amount: '1', payToStatus: 'retired' })],
  [ids.gone, target(ids.gone, { amount: '1', network: 'polygon' })],
  [ids.local, target(ids.local, { amount: '1', network: 'local' })],
  [ids.refund, target(ids.refund, { amount: '1', refundOf: `sha256:${'ab'.repeat(32)}` })],
]);
let reads = 0;

function serve(overrides: Partial<PayPageRouteDeps> = {}) {
  const clock = new ManualClock(now);
  const routes = payPageRoutes({
    refs: { getPaymentTarget: async (id) => ((reads += 1), targets.get(id)) },
    networks: createNetworkRegistry(),
    clock,
    ...overrides,
  });
  const handler = toFetchHandler(defineRoutes({ routes, renderError: renderGatewayError }), { remoteAddress: () => '203.0.113.9' });
  return { get: (path: string, method = 'GET') => handler(new Request(`http://gateway.test${path}`, { method })), clock, routes };
}

describe('GET /pay/:refId', () => {
  it('serves the payable page as HTML with the CSP, no-store, no referrer, no framing and nosniff', async () => {
    const response = await serve().get(`/pay/${ids.fixed}`);
    expect(response.status).toBe(200);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
    });
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp.split('; ')).toEqual(expect.arrayContaining(["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]));
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    const html = await response.text();
    expect(html).toContain('<h1>Pay 2.50 USDC</h1>');
    expect(html).toContain('Pro plan &lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('data-tx-link="https://basescan.org/tx/{tx}"');
  });

  it('answers 404 for an unknown or malformed id, and 410 for expired, revoked, retired and unserved refs', async () => {
    const { get } = serve();
    const before = reads;
    const cases: [string, number, string][] = [
      ['0123456789abcdef0123456789abcdef', 404, 'not_found'],
      ['not-a-ref', 404, 'not_found'],
      ['A'.repeat(32), 404, 'not_found'],
      [ids.expired, 410, 'expired'],
      [ids.revoked, 410, 'revoked'],
      [ids.retired, 410, 'payto_retired'],
      [ids.gone, 410, 'network_unavailable'],
    ];
    for (const [id, status, reason] of cases) {
      const response = await get(`/pay/${id}`);
      expect({ id, status: response.status }).toEqual({ id, status });
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.text()).toContain(`data-reason="${reason}"`);
    }
    // Malformed ids never reach the store.
    expect(reads - before).toBe(5);
  });

  it('puts a refund ref\'s refundOf in the receive URL the page pays through, and nothing into a payment ref\'s', async () => {
    const { get } = serve();
    expect(await (await get(`/pay/${ids.refund}`)).text()).toContain(`data-receive="../receive/${payTo}?ref=${ids.refund}&amp;refundOf=sha256%3A${'ab'.repeat(32)}"`);
    expect(await (await get(`/pay/${ids.fixed}`)).text()).toContain(`data-receive="../receive/${payTo}?ref=${ids.fixed}"`);
  });

  it('links chains without an explorer to /tx only when that route is public', async () => {
    expect(await (await serve().get(`/pay/${ids.local}`)).text()).not.toContain('data-tx-link');
    const html = await (await serve({ publicTxStatus: true }).get(`/pay/${ids.local}`)).text();
    expect(html).toContain('data-tx-link="../tx/{tx}"');
  });

  it('refuses over the rate limit with an HTML page and Retry-After, before reading the store', async () => {
    const clock = new ManualClock(now);
    const { get } = serve({ rateLimiter: createMemoryRateLimiter({ clock }), rateLimit: { limit: 2, windowMs: 60_000 } });
    expect((await get(`/pay/${ids.fixed}`)).status).toBe(200);
    expect((await get(`/pay/${ids.open}`)).status).toBe(200);
    const before = reads;
    const refused = await get(`/pay/${ids.fixed}`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await refused.text()).toContain('Wait 30 seconds');
    expect(reads).toBe(before);
  });

  it('needs the limiter and its rule together', () => {
    expect(() => serve({ rateLimiter: createMemoryRateLimiter({ clock: new ManualClock(now) }) })).toThrow(TypeError);
  });
});

describe('GET /pay/assets/*', () => {
  it('serves the script and stylesheet the page names, immutable, with the integrity the page pins', async () => {
    const { get } = serve();
    const html = await (await get(`/pay/${ids.fixed}`)).text();
    const tags = [...html.matchAll(/(?:src|href)="assets\/(pay-[0-9a-f]{16}\.(js|css))" integrity="(sha256-[^"]+)"/g)];
    expect(tags.map((tag) => tag[2]).sort()).toEqual(['css', 'js']);
    for (const [, fileName, extension, integrity] of tags) {
      const response = await get(`/pay/assets/${fileName}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(extension === 'js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const body = await response.text();
      expect(`sha256-${base64Encode(sha256(utf8Encode(body)))}`).toBe(integrity);
      expect(fileName).toContain(hexEncode(sha256(utf8Encode(body))).slice(0, 16));
    }
  });

  it('has nothing else under /pay/assets', async () => {
    const response = await serve().get('/pay/assets/pay-0000000000000000.js');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ x402Version: 2, error: { code: 'not_found' } });
  });

  it('serves a script that parses, keeps to its own scope and touches no HTML sink', async () => {
    const { routes } = serve();
    const script = routes.find((route) => route.path.endsWith('.js'));
    const body = (await script!.handler({ method: 'GET', path: script!.path, params: {}, query: {}, headers: {}, body: undefined })).body as string;
    expect(() => new Function(body)).not.toThrow();
    expect(body).toMatch(/^\/\/ Tollgate pay page\n\(function \(\) \{\n'use strict';/);
    expect(body).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
  });
});
