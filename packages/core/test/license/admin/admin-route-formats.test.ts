/**
 * The Admin route table's non-JSON extensions, checked with operations written for the test: raw request
 * bodies under their own cap, raw and streamed answers, audited reads, and an alternative authentication
 * that admits its callers on its own operation only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, bootstrapVendor, hexEncode, sha256, toFetchHandler } from '@tollgate/core';
import {
  adminOperation,
  createLicenseAdminApi,
  createSqlAuditLog,
  type AdminOperation,
  type BootstrappedVendor,
} from '@tollgate/core/license';
import { testDatabaseEngines, type TestDatabase } from '@tollgate/core/testing';
import { openLicenseTestDatabase, testMasterKey } from '../license-test-database';

const streamReleased: { count: number } = { count: 0 };

const testOperations = (vendorOf: () => string): AdminOperation[] => [
  adminOperation({
    method: 'POST',
    path: '/test/digest',
    scopes: ['products:rw'],
    kind: 'read',
    audited: true,
    bodyFormat: 'raw',
    maxBodyBytes: 1024,
    run: async (call) => {
      const bytes = call.body as Uint8Array;
      await call.audit({ action: 'test.digest', targetType: 'product', targetId: call.actor.vendorId, summary: { size: bytes.byteLength } });
      return { bytes: sha256(bytes), contentType: 'application/x-digest', headers: { 'x-test-size': String(bytes.byteLength) } };
    },
  }),
  adminOperation({
    method: 'POST',
    path: '/test/digest-unaudited',
    scopes: ['products:rw'],
    kind: 'read',
    audited: true,
    bodyFormat: 'raw',
    maxBodyBytes: 1024,
    run: async (call) => ({ bytes: sha256(call.body as Uint8Array), contentType: 'application/octet-stream' }),
  }),
  adminOperation({
    method: 'POST',
    path: '/test/bytes-mutation',
    scopes: ['products:rw'],
    kind: 'mutation',
    run: async (call) => {
      await call.audit({ action: 'test.bytes', targetType: 'product', targetId: call.actor.vendorId, summary: {} });
      return { bytes: new Uint8Array([1]), contentType: 'application/octet-stream' };
    },
  }),
  adminOperation({
    method: 'GET',
    path: '/test/products.ndjson',
    scopes: ['products:rw'],
    kind: 'read',
    run: async (call) => {
      const count = Number(call.query['count'] ?? '3');
      async function* rows() {
        try {
          for (let n = 0; n < count; n += 1) {
            const { rows: found } = await call.database.query<{ name: string }>('SELECT name FROM license_products WHERE vendor_id = $1', [call.actor.vendorId]);
            if (call.query['fail'] === String(n)) throw new Error('export source failed');
            yield `${JSON.stringify({ n, name: found[0]?.name ?? null })}\n`;
          }
        } finally {
          streamReleased.count += 1;
        }
      }
      return { stream: rows(), contentType: 'application/x-ndjson', headers: { 'content-disposition': 'attachment; filename="products.ndjson"' } };
    },
  }),
  adminOperation({
    method: 'POST',
    path: '/test/alternative',
    scopes: ['sign:manifest'],
    kind: 'read',
    alternativeAuth: async (credential) => {
      if (credential === 'ci-good') return { tokenId: 'ci:test', vendorId: vendorOf(), scopes: ['sign:manifest'], claims: { product: 'p' } };
      if (credential === 'ci-no-scope') return { tokenId: 'ci:test', vendorId: vendorOf(), scopes: [] };
      return undefined;
    },
    run: async (call) => ({ body: { via: call.actor.via ?? null, actor: call.actor.tokenId, claims: call.actor.claims ?? null } }),
  }),
];

for (const engine of await testDatabaseEngines()) {
  describe(`Admin route table: raw bodies, raw and streamed answers, alternative authentication [${engine.name}]`, () => {
    let database: TestDatabase;
    let vendor: BootstrappedVendor;
    let handle: (request: Request) => Promise<Response>;
    const unexpected: unknown[] = [];

    beforeAll(async () => {
      database = await openLicenseTestDatabase(engine);
      const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
      const audit = createSqlAuditLog(database.sql);
      const api = createLicenseAdminApi({
        sql: database.sql,
        masterKey: testMasterKey,
        clock,
        audit,
        tokenPrefix: 'tgla_',
        realm: 'test',
        operations: testOperations(() => vendor.vendorId),
        onUnexpectedError: (error) => unexpected.push(error),
      });
      handle = toFetchHandler(api.table);
      vendor = await bootstrapVendor({ sql: database.sql, masterKey: testMasterKey, tokenPrefix: 'tgla_', audit, clock }, { vendor: 'Acme', product: 'Editor' });
    });
    afterAll(() => database?.close());

    const send = (method: string, path: string, init: { token?: string; body?: Uint8Array | string; type?: string; headers?: Record<string, string> } = {}) =>
      handle(
        new Request(`http://admin.test/v1/admin${path}`, {
          method,
          headers: { authorization: `Bearer ${init.token ?? vendor.token}`, ...(init.type === undefined ? {} : { 'content-type': init.type }), ...init.headers },
          ...(init.body === undefined ? {} : { body: init.body as BodyInit }),
        }),
      );
    const auditCount = async () => Number((await database.sql.query<{ n: string }>('SELECT count(*) AS n FROM license_audit_events WHERE vendor_id = $1', [vendor.vendorId])).rows[0]?.n);

    it('takes a raw body, answers raw bytes with their own headers, and audits every call', async () => {
      const before = await auditCount();
      const body = new Uint8Array([0, 1, 2, 250, 255]);
      for (let n = 1; n <= 2; n += 1) {
        const response = await send('POST', '/test/digest', { body, type: 'application/octet-stream' });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/x-digest');
        expect(response.headers.get('x-test-size')).toBe('5');
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('cache-control')).toBe('no-store');
        expect(hexEncode(new Uint8Array(await response.arrayBuffer()))).toBe(hexEncode(sha256(body)));
        expect(await auditCount()).toBe(before + n);
      }
    });

    it('refuses a raw body of another type (415), over its cap (413) or empty (400) with the JSON envelope', async () => {
      const wrongType = await send('POST', '/test/digest', { body: '{}', type: 'application/json' });
      expect([wrongType.status, (await wrongType.json()).error.code]).toEqual([415, 'unsupported_media_type']);
      const tooLarge = await send('POST', '/test/digest', { body: new Uint8Array(1025), type: 'application/octet-stream' });
      expect([tooLarge.status, (await tooLarge.json()).error.code]).toEqual([413, 'payload_too_large']);
      const empty = await send('POST', '/test/digest', { body: new Uint8Array(0), type: 'application/octet-stream' });
      expect(empty.status).toBe(400);
      expect((await empty.json()).ok).toBe(false);
      const atCap = await send('POST', '/test/digest', { body: new Uint8Array(1024), type: 'application/octet-stream' });
      expect(atCap.status).toBe(200);
    });

    it('answers 500 for an audited read that appends no audit event, and for raw bytes from a journaled mutation', async () => {
      unexpected.length = 0;
      const unaudited = await send('POST', '/test/digest-unaudited', { body: new Uint8Array([1]), type: 'application/octet-stream' });
      expect([unaudited.status, (await unaudited.json()).error.code]).toEqual([500, 'internal_error']);
      const before = await auditCount();
      const mutation = await send('POST', '/test/bytes-mutation', { body: '{}', type: 'application/json', headers: { 'idempotency-key': 'bytes-1' } });
      expect(mutation.status).toBe(500);
      expect(await auditCount()).toBe(before);
      expect(unexpected.map(String).join('\n')).toMatch(/appended no audit event[\s\S]*raw bytes or a stream/);
    });

    it('streams an answer read from the database, and releases the producer at the end', async () => {
      const released = streamReleased.count;
      const response = await send('GET', '/test/products.ndjson?count=50');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/x-ndjson');
      expect(response.headers.get('content-disposition')).toBe('attachment; filename="products.ndjson"');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const lines = (await response.text()).trim().split('\n').map((line) => JSON.parse(line) as { n: number; name: string });
      expect(lines.map((line) => line.n)).toEqual(Array.from({ length: 50 }, (_, n) => n));
      expect(lines[0]?.name).toBe('Editor');
      expect(streamReleased.count).toBe(released + 1);
    });

    it('reports a producer failing mid-stream and truncates the body', async () => {
      unexpected.length = 0;
      const response = await send('GET', '/test/products.ndjson?count=10&fail=4');
      expect(response.status).toBe(200);
      await expect(response.text()).rejects.toThrow();
      expect(unexpected).toHaveLength(1);
      expect(String((unexpected[0] as Error).cause)).toMatch(/export source failed/);
    });

    it('admits an alternative credential on its operation only, with its scopes checked', async () => {
      const admitted = await send('POST', '/test/alternative', { token: 'ci-good' });
      expect(admitted.status).toBe(200);
      expect(await admitted.json()).toEqual({ ok: true, via: 'alternative', actor: 'ci:test', claims: { product: 'p' } });
      const viaToken = await send('POST', '/test/alternative');
      expect((await viaToken.json()).via).toBe('token');
      const noScope = await send('POST', '/test/alternative', { token: 'ci-no-scope' });
      expect([noScope.status, (await noScope.json()).error.code]).toEqual([403, 'insufficient_scope']);
      const unknown = await send('POST', '/test/alternative', { token: 'ci-bad' });
      expect([unknown.status, (await unknown.json()).error.code]).toEqual([401, 'invalid_token']);
      expect(unknown.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
      // Every other operation stays exactly as strict: the credential is not even looked at there.
      const elsewhere = await send('POST', '/test/digest', { token: 'ci-good', body: new Uint8Array([1]), type: 'application/octet-stream' });
      expect([elsewhere.status, (await elsewhere.json()).error.code]).toEqual([401, 'invalid_token']);
    });
  });
}
