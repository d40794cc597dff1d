/**
 * Matrices generated from the Admin API's operations (`server.context.admin.operations`), so a new
 * operation cannot skip them: scopes, vendor isolation, dry-run defaults, body limits and fuzzed input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRevokeBodyLimit, adminScopes, scopeSatisfied, type AdminOperation, type AdminScope } from '@tollgate/core/license';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { snapshotTables } from './admin-license-fixtures';
import { seedVendorTargets, type SeededTargets } from './admin-seeds';
import { serverEngines } from '../helpers';

const title = (operation: AdminOperation) => `${operation.method} ${operation.path}`;

/** The path with every `:param` replaced by the seeded target of that kind. */
function pathFor(operation: AdminOperation, targets: SeededTargets): string {
  return operation.path.replace(/:([A-Za-z]+)/g, (_match, name: string) => {
    const id = targets[name as keyof SeededTargets];
    if (id === undefined) throw new Error(`No seeded target for :${name} (${title(operation)}): add it to admin-seeds.ts`);
    return id;
  });
}

/** An empty JSON body for operations that take one (GET and DELETE send none). */
/** An empty JSON body for operations that take one (GET and DELETE send none); DSR requests name their subject. */
const bodyFor = (operation: AdminOperation, targets?: SeededTargets): { body?: unknown } =>
  operation.method === 'GET' || operation.method === 'DELETE' ? {} : operation.path.startsWith('/dsr/') && targets ? { body: { license_id: targets.licenseId } } : { body: {} };


const fuzzQueries: Record<string, string>[] = [{}, { limit: '0' }, { limit: '999999' }, { cursor: '!!' }, { cursor: 'MTIzLmFiYw' }, { status: 'x' }, { product_id: 'nope' }, { dry_run: 'maybe' }];

const fuzzValues: unknown[] = [null, true, 0, -1, 1.5, 1e308, '', 'x'.repeat(300), '\u0000', [], [null], {}, { a: { b: { c: [1, 2, { d: null }] } } }, '2026-13-45', '../../etc', 'ff'.repeat(16)];

function fuzzBodies(seed: number): unknown[] {
  const bodies: unknown[] = [...fuzzValues];
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state;
  };
  const keys = ['id', 'product_id', 'policy_id', 'count', 'tier', 'email', 'password', 'url', 'threshold', 'reason', 'status', 'expires_at', 'seats', 'members', 'features', 'name', 'from_seq', 'limit'];
  for (let n = 0; n < 12; n += 1) {
    const body: Record<string, unknown> = {};
    for (let k = 0; k < 1 + (next() % 5); k += 1) body[keys[next() % keys.length] as string] = fuzzValues[next() % fuzzValues.length];
    bodies.push(body);
  }
  return bodies;
}

for (const engine of serverEngines) {
  describe(`Admin API matrices [${engine.name}]`, () => {
    let bench: AdminHarness;
    let operations: readonly AdminOperation[];
    let targets: SeededTargets;
    beforeAll(async () => {
      bench = await openAdminHarness(engine);
      operations = bench.server.context.admin.operations;
      targets = await seedVendorTargets(bench, bench.vendorA);
    }, 60_000);
    afterAll(() => bench?.close());

    it('covers every route of the table', () => {
      expect(operations.length).toBeGreaterThanOrEqual(30);
      expect(bench.server.context.admin.table.routes).toHaveLength(operations.length);
    });

    it('refuses every operation without a token (401) and with a token lacking its scope (403)', async () => {
      for (const operation of operations) {
        const path = pathFor(operation, targets);
        const anonymous = await bench.call(operation.method, path, { token: null, key: freshKey() });
        expect(anonymous.status, title(operation)).toBe(401);
        const lacking = adminScopes.filter((held) => !operation.scopes.some((needed) => scopeSatisfied([held], needed)));
        const token = await bench.tokenWith(bench.vendorA, lacking as AdminScope[]);
        const refused = await bench.call(operation.method, path, { token, key: freshKey(), ...bodyFor(operation) });
        expect(refused.status, title(operation)).toBe(403);
        expect(refused.body.error.code, title(operation)).toBe('insufficient_scope');
      }
    }, 120_000);

    it('answers another vendor’s targets as not found and never lists them', async () => {
      const aIds = Object.values(targets);
      for (const operation of operations) {
        const hasTarget = operation.path.includes(':');
        const answer = await bench.call(operation.method, pathFor(operation, targets), {
          token: bench.vendorB.token,
          key: freshKey(),
          query: { product_id: targets.productId, dry_run: 'true' },
          ...bodyFor(operation),
        });
        if (hasTarget) {
          expect(answer.status, title(operation)).toBe(404);
          expect(answer.body.error.code, title(operation)).toBe('not_found');
        } else {
          expect(answer.status, title(operation)).toBeLessThan(500);
          for (const id of aIds) expect(answer.text, `${title(operation)} leaks ${id}`).not.toContain(id);
        }
      }
    }, 120_000);

    it('runs every destructive operation as a dry run by default and changes nothing', async () => {
      const destructive = operations.filter((operation) => operation.kind === 'destructive');
      expect(destructive.length).toBeGreaterThanOrEqual(3);
      for (const operation of destructive) {
        const before = await snapshotTables(bench);
        const answer = await bench.call(operation.method, pathFor(operation, targets), bodyFor(operation, targets));
        expect(answer.status, title(operation)).toBe(200);
        expect(answer.body.dry_run, title(operation)).toBe(true);
        expect(await snapshotTables(bench), title(operation)).toBe(before);
      }
    }, 120_000);

    it('refuses confirmed mutations without an Idempotency-Key', async () => {
      for (const operation of operations.filter((op) => op.kind !== 'read')) {
        const answer = await bench.call(operation.method, pathFor(operation, targets), { query: { dry_run: 'false' }, ...bodyFor(operation) });
        expect(answer.status, title(operation)).toBe(400);
        expect(answer.body.error.message, title(operation)).toMatch(/Idempotency-Key/);
      }
    }, 120_000);

    it('caps bodies at 256 KiB, and at 4 KiB on revoke routes', async () => {
      for (const operation of operations.filter((op) => op.method !== 'GET' && op.method !== 'DELETE')) {
        const limit = operation.path.endsWith('/revoke') ? adminRevokeBodyLimit : (operation.maxBodyBytes ?? 256 * 1024);
        if (operation.path.endsWith('/revoke')) expect(operation.maxBodyBytes, title(operation)).toBe(adminRevokeBodyLimit);
        const answer = await bench.call(operation.method, pathFor(operation, targets), { rawBody: JSON.stringify({ pad: 'x'.repeat(limit) }), key: freshKey() });
        expect(answer.status, title(operation)).toBe(413);
        expect(answer.body.error.code).toBe('payload_too_large');
      }
    }, 120_000);

    it('never answers fuzzed bodies and queries with a 5xx', async () => {
      let seed = 7;
      for (const operation of operations) {
        const path = pathFor(operation, targets);
        // Queries are fuzzed on reads, bodies on writes (with the query a confirmation would carry).
        for (const body of operation.method === 'GET' ? [undefined] : fuzzBodies((seed += 1))) {
          for (const query of operation.method === 'GET' ? fuzzQueries : [{ dry_run: 'false' }]) {
            const answer = await bench.call(operation.method, path, { body, query, key: freshKey() });
            expect(answer.status, `${title(operation)} ${JSON.stringify({ body, query })}`).toBeLessThan(500);
            expect(answer.body?.ok, title(operation)).toBe(answer.status < 300);
          }
        }
      }
    }, 300_000);
  });
}
