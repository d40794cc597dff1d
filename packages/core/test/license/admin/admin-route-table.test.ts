/**
 * What the Admin route table itself guarantees to every operation, checked with operations written for
 * the test (a real route would have to be broken to show them): a confirmed mutation that appends no
 * audit event is refused as a programming error with its effects rolled back, and a replayed
 * Idempotency-Key is answered from the journal without running the operation's slow `prepare`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, bootstrapVendor, toFetchHandler } from '@tollgate/core';
import {
  accountOperations,
  adminOperation,
  createLicenseAdminApi,
  createSqlAuditLog,
  type AdminCall,
  type AdminOperation,
  type BootstrappedVendor,
} from '@tollgate/core/license';
import { testDatabaseEngines, type TestDatabase } from '@tollgate/core/testing';
import { openLicenseTestDatabase, testMasterKey } from '../license-test-database';

/** Renames the vendor's product: an effect the tests can see rolled back or kept. */
const renameProduct = (audited: boolean) => async (call: AdminCall) => {
  const body = call.body as { product_id: string; name: string };
  if (call.dryRun) return { body: { dry_run: true, would_rename: true } };
  await call.sql.query('UPDATE license_products SET name = $3 WHERE product_id = $1 AND vendor_id = $2', [body.product_id, call.actor.vendorId, body.name]);
  if (audited) await call.audit({ action: 'product.rename', targetType: 'product', targetId: body.product_id, summary: { name: body.name } });
  return { body: { renamed: true } };
};

const testOperations = (prepared: { count: number }): AdminOperation[] => [
  adminOperation({ method: 'POST', path: '/test/audited', scopes: ['products:rw'], kind: 'mutation', run: renameProduct(true) }),
  adminOperation({ method: 'POST', path: '/test/unaudited', scopes: ['products:rw'], kind: 'mutation', run: renameProduct(false) }),
  adminOperation({ method: 'POST', path: '/test/unaudited-destructive', scopes: ['products:rw'], kind: 'destructive', run: renameProduct(false) }),
  adminOperation({
    method: 'POST',
    path: '/test/prepared',
    scopes: ['products:rw'],
    kind: 'mutation',
    prepare: async () => {
      prepared.count += 1;
      return prepared.count;
    },
    run: async (call) => {
      await call.audit({ action: 'product.prepared', targetType: 'product', targetId: call.actor.vendorId, summary: {} });
      return { status: 201, body: { prepared_in_call: call.prepared } };
    },
  }),
];

/** `POST /accounts` as shipped, with its `prepare` (the scrypt KDF) counted. */
function countedAccountOperations(kdfRuns: { count: number }): AdminOperation[] {
  return accountOperations().map((operation) => {
    const prepare = operation.prepare;
    if (prepare === undefined) return operation;
    return {
      ...operation,
      prepare: (call) => {
        kdfRuns.count += 1;
        return prepare.call(operation, call);
      },
    };
  });
}

for (const engine of await testDatabaseEngines()) {
  describe(`Admin route table: audit and replay guarantees [${engine.name}]`, () => {
    let database: TestDatabase;
    let vendor: BootstrappedVendor;
    let handle: (request: Request) => Promise<Response>;
    const unexpected: unknown[] = [];
    const prepared = { count: 0 };
    const kdfRuns = { count: 0 };

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
        operations: [...testOperations(prepared), ...countedAccountOperations(kdfRuns)],
        onUnexpectedError: (error) => unexpected.push(error),
      });
      handle = toFetchHandler(api.table);
      vendor = await bootstrapVendor({ sql: database.sql, masterKey: testMasterKey, tokenPrefix: 'tgla_', audit, clock }, { vendor: 'Acme', product: 'Editor' });
    });
    afterAll(() => database?.close());

    // Tests read arbitrary fields of the answers they expect.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const call = async (path: string, options: { body?: unknown; key?: string; query?: Record<string, string> } = {}): Promise<{ status: number; replayed: boolean; body: any }> => {
      const url = new URL(`http://admin.test/v1/admin${path}`);
      for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
      const headers: Record<string, string> = { authorization: `Bearer ${vendor.token}`, 'content-type': 'application/json' };
      if (options.key !== undefined) headers['idempotency-key'] = options.key;
      const response = await handle(new Request(url, { method: 'POST', headers, body: JSON.stringify(options.body ?? {}) }));
      return { status: response.status, replayed: response.headers.get('idempotent-replayed') === 'true', body: await response.json() };
    };
    const productName = async () => (await database.sql.query<{ name: string }>('SELECT name FROM license_products WHERE product_id = $1', [vendor.productId])).rows[0]?.name;
    const auditCount = async () => Number((await database.sql.query<{ n: string }>('SELECT count(*) AS n FROM license_audit_events WHERE vendor_id = $1', [vendor.vendorId])).rows[0]?.n);

    it('refuses a confirmed mutation that appends no audit event: 500, effects rolled back, nothing journaled', async () => {
      const audited = await call('/test/audited', { body: { product_id: vendor.productId, name: 'Audited' }, key: 'audited-1' });
      expect(audited.status).toBe(200);
      expect(await productName()).toBe('Audited');
      const events = await auditCount();

      unexpected.length = 0;
      const body = { product_id: vendor.productId, name: 'Never audited' };
      const refused = await call('/test/unaudited', { body, key: 'unaudited-1' });
      expect([refused.status, refused.body.error.code]).toEqual([500, 'internal_error']);
      expect(JSON.stringify(refused.body)).not.toMatch(/audit/i);
      expect(unexpected).toHaveLength(1);
      expect(String(unexpected[0])).toMatch(/POST \/test\/unaudited .*no audit event/);
      expect(await productName()).toBe('Audited');
      expect(await auditCount()).toBe(events);
      // Nothing was journaled: the same key runs (and is refused) again rather than replaying.
      const again = await call('/test/unaudited', { body, key: 'unaudited-1' });
      expect([again.status, again.replayed]).toEqual([500, false]);
    });

    it('applies the same rule to confirmed destructive operations, and none to their dry runs', async () => {
      const body = { product_id: vendor.productId, name: 'Destroyed unaudited' };
      const before = await productName();
      const confirmed = await call('/test/unaudited-destructive', { body, key: 'destructive-1', query: { dry_run: 'false' } });
      expect([confirmed.status, confirmed.body.error.code]).toEqual([500, 'internal_error']);
      expect(await productName()).toBe(before);
      const dryRun = await call('/test/unaudited-destructive', { body });
      expect([dryRun.status, dryRun.body.would_rename]).toEqual([200, true]);
    });

    it('replays a stored answer without running prepare again', async () => {
      const first = await call('/test/prepared', { body: { n: 1 }, key: 'prepared-1' });
      expect([first.status, first.replayed, first.body.prepared_in_call]).toEqual([201, false, prepared.count]);
      const runs = prepared.count;
      const replay = await call('/test/prepared', { body: { n: 1 }, key: 'prepared-1' });
      expect([replay.status, replay.replayed]).toEqual([201, true]);
      expect(replay.body).toEqual(first.body);
      expect(prepared.count).toBe(runs);
      // A different request under the key is still the conflict it always was.
      const conflict = await call('/test/prepared', { body: { n: 2 }, key: 'prepared-1' });
      expect([conflict.status, conflict.body.error.code]).toEqual([409, 'idempotency_conflict']);
    });

    it('answers a replayed POST /accounts without rerunning the password KDF', async () => {
      const body = { product_id: vendor.productId, email: 'replay@example.com', password: 'correct horse battery' };
      const created = await call('/accounts', { body, key: 'account-1' });
      expect([created.status, created.replayed]).toEqual([201, false]);
      expect(kdfRuns.count).toBe(1);
      const replay = await call('/accounts', { body, key: 'account-1' });
      expect([replay.status, replay.replayed]).toEqual([201, true]);
      expect(replay.body).toEqual(created.body);
      expect(kdfRuns.count).toBe(1);
    });
  });
}
