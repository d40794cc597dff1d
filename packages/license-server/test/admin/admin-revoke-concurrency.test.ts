/**
 * Revocations under contention, on the PostgreSQL server only (PGlite's single connection serialises
 * everything, so these would pass there without proving anything).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { issueLicenses, seedMachines, seedPolicy } from './admin-license-fixtures';
import { serverEngines } from '../helpers';

const server = serverEngines.find((engine) => engine.name !== 'pglite');

describe.skipIf(server === undefined)('Admin revocations under contention [postgres]', () => {
  let bench: AdminHarness;
  beforeAll(async () => {
    bench = await openAdminHarness(server as NonNullable<typeof server>);
  });
  afterAll(() => bench?.close());

  it('never deadlocks a license revoke against revokes of its machines', async () => {
    const policyId = await seedPolicy(bench, bench.vendorA, { seats: 5 });
    const licenses = await issueLicenses(bench, policyId, { count: 8 });
    const requests: Promise<{ status: number; text: string }>[] = [];
    for (const license of licenses) {
      const machines = await seedMachines(bench, bench.vendorA, license.license_id, 3);
      requests.push(bench.call('POST', `/licenses/${license.license_id}/revoke`, { query: { dry_run: 'false' }, key: freshKey(), body: {} }));
      for (const machineId of machines) requests.push(bench.call('POST', `/machines/${machineId}/revoke`, { query: { dry_run: 'false' }, key: freshKey(), body: {} }));
    }
    const answers = await Promise.all(requests);
    expect(answers.filter((answer) => answer.status >= 500).map((answer) => answer.text)).toEqual([]);
    expect(answers.every((answer) => answer.status === 200 || answer.status === 409)).toBe(true);
    const { rows } = await bench.sql.query<{ status: string }>('SELECT DISTINCT m.status FROM license_machines m WHERE m.license_id = ANY($1)', [licenses.map((l) => l.license_id)]);
    expect(rows.map((row) => row.status)).toEqual(['revoked']);
    expect((await bench.call('POST', '/audit/verify', { body: {} })).body.verified).toBe(true);
  }, 60_000);

  it('does not journal revocation_in_progress: the same key succeeds once the holder lets go', async () => {
    const policyId = await seedPolicy(bench, bench.vendorA);
    const [license] = await issueLicenses(bench, policyId);
    const licenseId = (license as { license_id: string }).license_id;
    const key = freshKey();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked: () => void = () => undefined;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = bench.sql.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM license_licenses WHERE license_id = $1 FOR NO KEY UPDATE', [licenseId]);
      locked();
      await held;
    });
    await isLocked;
    const busy = await bench.call('POST', `/licenses/${licenseId}/revoke`, { query: { dry_run: 'false' }, key, body: {} });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('revocation_in_progress');
    release();
    await holder;
    const retried = await bench.call('POST', `/licenses/${licenseId}/revoke`, { query: { dry_run: 'false' }, key, body: {} });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body.license.status).toBe('revoked');
  });
});
