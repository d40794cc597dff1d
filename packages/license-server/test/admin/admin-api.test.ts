import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminScopes } from '@tollgate/core/license';
import { openAdminHarness, freshKey, type AdminHarness } from './admin-harness';
import { memoryLog, serverEngines } from '../helpers';

const hook = { url: 'https://hooks.example.com/tollgate', threshold: 10 };

for (const engine of serverEngines) {
  describe(`Admin API wire rules [${engine.name}]`, () => {
    let bench: AdminHarness;
    const alertPath = () => `/products/${bench.vendorA.productId}/alert-webhook`;
    beforeAll(async () => {
      bench = await openAdminHarness(engine);
    });
    afterAll(() => bench?.close());

    it('answers JSON with ok: true, Cache-Control: no-store and no CORS headers', async () => {
      const answer = await bench.call('GET', alertPath());
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ ok: true, product_id: bench.vendorA.productId, alert_webhook: null, signing_key_id: expect.stringMatching(/^ak_[0-9a-f]{16}$/), signing_secret: expect.stringMatching(/^[0-9a-f]{64}$/), updated_at: expect.any(String) });
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    });

    it('answers unknown admin paths and methods in the JSON envelope, never the client protocol CBOR', async () => {
      const unknown = await bench.call('GET', '/licenses-typo', { token: null });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ ok: false, error: { code: 'not_found', message: expect.any(String) } });
      expect(unknown.headers.get('cache-control')).toBe('no-store');
      expect(unknown.headers.get('access-control-allow-origin')).toBeNull();
      const wrongMethod = await bench.call('DELETE', alertPath());
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.body.error.code).toBe('method_not_allowed');
      const preflight = await fetch(new URL(`/v1/admin${alertPath()}`, bench.url), { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'PATCH' } });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    });

    it.each([
      ['no Authorization header', null],
      ['a malformed token', 'tgla_short'],
      ['an unknown well-formed token', `tgla_${'A'.repeat(43)}`],
    ])('refuses %s with 401 invalid_token and a Bearer challenge', async (_title, token) => {
      const answer = await bench.call('GET', alertPath(), { token });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ ok: false, error: { code: 'invalid_token', message: expect.any(String) } });
      expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="tollgate-license"');
    });

    it('refuses a non-Bearer scheme and an expired token with 401', async () => {
      expect((await bench.call('GET', alertPath(), { token: null, headers: { authorization: `Basic ${bench.vendorA.token}` } })).status).toBe(401);
      const expired = await bench.tokenWith(bench.vendorA, ['products:rw'], { expiresAt: new Date(Date.now() - 1000) });
      const answer = await bench.call('GET', alertPath(), { token: expired });
      expect(answer.status).toBe(401);
      expect(answer.body.error.message).toMatch(/expired/);
    });

    it('refuses a valid token without the scope with 403 insufficient_scope', async () => {
      const token = await bench.tokenWith(bench.vendorA, adminScopes.filter((scope) => scope !== 'products:rw'));
      const answer = await bench.call('GET', alertPath(), { token });
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ ok: false, error: { code: 'insufficient_scope', message: expect.stringContaining('products:rw') } });
    });

    it('answers another vendor’s product as not found, never forbidden', async () => {
      const answer = await bench.call('GET', `/products/${bench.vendorB.productId}/alert-webhook`);
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('not_found');
      const patch = await bench.call('PATCH', `/products/${bench.vendorB.productId}/alert-webhook`, { body: hook, key: freshKey() });
      expect(patch.status).toBe(404);
    });

    it('needs an Idempotency-Key of 1 to 128 printable ASCII characters on mutations', async () => {
      for (const key of [undefined, '', 'a'.repeat(129), 'has space', 'ünicode']) {
        const answer = await bench.call('PATCH', alertPath(), { body: hook, ...(key === undefined ? {} : { key }) });
        expect(answer.status, String(key)).toBe(400);
        expect(answer.body.error.code).toBe('invalid_request');
      }
      expect((await bench.call('PATCH', alertPath(), { body: hook, key: '~'.repeat(128) })).status).toBe(200);
    });

    it('replays a keyed mutation verbatim and refuses the key with another body', async () => {
      const key = freshKey();
      const first = await bench.call('PATCH', alertPath(), { body: hook, key });
      const replay = await bench.call('PATCH', alertPath(), { body: { threshold: 10, url: hook.url }, key });
      expect(first.status).toBe(200);
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      const conflict = await bench.call('PATCH', alertPath(), { body: { ...hook, threshold: 11 }, key });
      expect(conflict.status).toBe(409);
      expect(conflict.body.error.code).toBe('idempotency_conflict');
    });

    it('runs 20 concurrent requests with one key once (one audit event)', async () => {
      const key = freshKey();
      const before = (await bench.call('GET', '/audit', { query: { target_type: 'product', limit: '200' } })).body.events.length;
      const answers = await Promise.all(Array.from({ length: 20 }, () => bench.call('PATCH', alertPath(), { body: { url: 'https://hooks.example.com/race', threshold: 3 }, key })));
      expect(new Set(answers.map((answer) => `${answer.status} ${answer.text}`)).size).toBe(1);
      expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === null)).toHaveLength(1);
      const after = (await bench.call('GET', '/audit', { query: { target_type: 'product', limit: '200' } })).body.events.length;
      expect(after - before).toBe(1);
    });

    it('validates the alert webhook: https on a public host, threshold 1..100', async () => {
      for (const body of [
        { url: 'http://hooks.example.com/x', threshold: 5 },
        { url: 'https://127.0.0.1/x', threshold: 5 },
        { url: 'https://user:pw@hooks.example.com/x', threshold: 5 },
        { url: hook.url, threshold: 0 },
        { url: hook.url, threshold: 101 },
        { url: hook.url, threshold: 1.5 },
        { url: hook.url },
        { ...hook, extra: true },
      ]) {
        const answer = await bench.call('PATCH', alertPath(), { body, key: freshKey() });
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(answer.body.error.code).toBe('invalid_request');
      }
      const saved = await bench.call('PATCH', alertPath(), { body: { url: 'https://alerts.example.org/x', threshold: 100 }, key: freshKey() });
      expect(saved.body.alert_webhook).toEqual({ url: 'https://alerts.example.org/x', threshold: 100 });
      expect((await bench.call('GET', alertPath())).body.alert_webhook).toEqual({ url: 'https://alerts.example.org/x', threshold: 100 });
    });

    it('refuses malformed JSON, duplicate keys, wrong media types and bodies over 256 KiB in the envelope', async () => {
      const malformed = await bench.call('PATCH', alertPath(), { rawBody: '{"url":', key: freshKey() });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.code).toBe('invalid_request');
      const duplicate = await bench.call('PATCH', alertPath(), { rawBody: '{"url":"https://a.example","url":"https://b.example","threshold":1}', key: freshKey() });
      expect(duplicate.status).toBe(400);
      const media = await bench.call('PATCH', alertPath(), { rawBody: 'x', key: freshKey(), headers: { 'content-type': 'text/plain' } });
      expect(media.status).toBe(415);
      expect(media.body.error.code).toBe('unsupported_media_type');
      const big = await bench.call('PATCH', alertPath(), { rawBody: JSON.stringify({ ...hook, pad: 'x'.repeat(256 * 1024) }), key: freshKey() });
      expect(big.status).toBe(413);
      expect(big.body).toEqual({ ok: false, error: { code: 'payload_too_large', message: expect.any(String) } });
      expect(big.headers.get('cache-control')).toBe('no-store');
    });

    it('refuses JSON no field can hold: overflowing numbers, deep nesting, NUL and lone surrogates', async () => {
      for (const rawBody of [
        '{"url":"https://hooks.example.com/x","threshold":1e400}',
        `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
        '{"url":"https://hooks.example.com/x\\u0000","threshold":5}',
        '{"url":"https://hooks.example.com/\\ud800","threshold":5}',
        '{"url\\u0000":"https://hooks.example.com/x","threshold":5}',
      ]) {
        const answer = await bench.call('PATCH', alertPath(), { rawBody, key: freshKey() });
        expect(answer.status, rawBody.slice(0, 60)).toBe(400);
        expect(answer.body.error.code).toBe('invalid_request');
      }
      const nulQuery = await bench.call('GET', '/audit', { query: { target_id: 'a\u0000b' } });
      expect(nulQuery.status).toBe(400);
    });

    it('answers an unhandled failure with 500 internal_error and no internals', async () => {
      // Fault injection with the real database: the table the route reads is briefly missing.
      await bench.sql.query('ALTER TABLE license_products RENAME TO license_products_gone');
      try {
        const answer = await bench.call('GET', alertPath());
        expect(answer.status).toBe(500);
        expect(answer.body).toEqual({ ok: false, error: { code: 'internal_error', message: 'Internal error.' } });
        expect(answer.text).not.toMatch(/license_products|relation|at \w+ \(/);
        expect(answer.headers.get('cache-control')).toBe('no-store');
      } finally {
        await bench.sql.query('ALTER TABLE license_products_gone RENAME TO license_products');
      }
    });

    it('audits every mutation in a chain that verifies', async () => {
      await bench.call('PATCH', alertPath(), { body: { url: 'https://audit.example.com/a', threshold: 42 }, key: freshKey() });
      const listed = await bench.call('GET', '/audit', { query: { target_type: 'product', target_id: bench.vendorA.productId, limit: '1' } });
      expect(listed.body.events[0]).toMatchObject({ action: 'product.alert_webhook.set', target: { type: 'product', id: bench.vendorA.productId }, summary: { threshold: 42 } });
      expect(listed.body.events[0].actor).toMatch(/^[0-9a-f]{32}$/);
      // The immutable chain keeps the webhook's host and a hash, never a path or query that may hold a secret.
      expect(listed.body.events[0].summary).toEqual({ url_host: 'audit.example.com', url_sha256: expect.stringMatching(/^[0-9a-f]{64}$/), threshold: 42 });
      const verified = await bench.call('POST', '/audit/verify', { body: {} });
      expect(verified.body).toMatchObject({ ok: true, verified: true, first_broken: null, complete: true, next_from_seq: null });
      const window = await bench.call('POST', '/audit/verify', { body: { from_seq: 2, limit: 2 } });
      expect(window.body).toMatchObject({ verified: true, event_count: 2, complete: false, next_from_seq: 4 });
      expect(verified.body.event_count).toBeGreaterThan(3);
      const otherVendor = await bench.call('GET', '/audit', { token: bench.vendorB.token, query: { limit: '200' } });
      expect(otherVendor.text).not.toContain(bench.vendorA.productId);
    });
  });
}

describe('Admin API logging', () => {
  it('never logs Admin tokens, even on refused requests', async () => {
    const engine = serverEngines[0];
    if (engine === undefined) return;
    const log = memoryLog();
    const { openServerSandbox } = await import('../helpers');
    const sandbox = await openServerSandbox(engine);
    try {
      const server = await sandbox.start({ LOG_LEVEL: 'info' }, { logDestination: log.destination });
      const token = `tgla_${'B'.repeat(43)}`;
      await fetch(new URL('/v1/admin/audit', server.url), { headers: { authorization: `Bearer ${token}` } });
      await fetch(new URL('/v1/admin/audit?token=x', server.url), { headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'k' } });
      expect(log.lines.join('')).not.toContain('B'.repeat(43));
      expect(log.lines.length).toBeGreaterThan(0);
    } finally {
      await sandbox.cleanup();
    }
  });

  it('logs an unexpected failure with the request id the answer carries, never its cause in the answer', async () => {
    const engine = serverEngines[0];
    if (engine === undefined) return;
    const log = memoryLog();
    const bench = await openAdminHarness(engine, { LOG_LEVEL: 'info' }, { logDestination: log.destination });
    try {
      // A database the operation did not expect: the policies table is gone.
      await bench.sql.query('ALTER TABLE license_policies RENAME TO license_policies_away');
      const answer = await fetch(new URL('/v1/admin/policies', bench.url), { headers: { authorization: `Bearer ${bench.vendorA.token}`, 'x-request-id': 'ops-trace-42' } });
      expect(answer.status).toBe(500);
      expect(answer.headers.get('x-request-id')).toBe('ops-trace-42');
      const body = (await answer.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('internal_error');
      expect(body.error.message).not.toMatch(/license_policies/);
      const logged = log.lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line['msg'] === 'unhandled admin error');
      expect(logged).toMatchObject({ requestId: 'ops-trace-42' });
      await bench.sql.query('ALTER TABLE license_policies_away RENAME TO license_policies');
    } finally {
      await bench.close();
    }
  });
});
