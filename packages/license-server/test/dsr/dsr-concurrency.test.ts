/**
 * Erasures under contention, on the PostgreSQL server only (PGlite's single connection serialises
 * everything, so this would pass there without proving anything).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKey, type AdminHarness } from '../admin/admin-harness';
import { issueLicenses, seedMachines, seedPolicy } from '../admin/admin-license-fixtures';
import { serverEngines } from '../helpers';
import { openDsrBench } from './dsr-fixtures';

const server = serverEngines.find((engine) => engine.name !== 'pglite');

describe.skipIf(server === undefined)('DSR erasure under contention [postgres]', () => {
  let bench: AdminHarness;
  beforeAll(async () => {
    bench = await openDsrBench(server as NonNullable<typeof server>);
  }, 60_000);
  afterAll(() => bench?.close());

  it('never deadlocks license and machine erasures against each other and against revocations', async () => {
    const policyId = await seedPolicy(bench, bench.vendorA, { seats: 5 });
    const licenses = await issueLicenses(bench, policyId, { count: 6 });
    const requests: Promise<{ status: number; text: string }>[] = [];
    for (const [index, license] of licenses.entries()) {
      const machines = await seedMachines(bench, bench.vendorA, license.license_id, 3);
      const confirmed = { query: { dry_run: 'false' }, key: freshKey() };
      requests.push(bench.call('POST', '/dsr/delete', { ...confirmed, body: { license_id: license.license_id } }));
      if (index % 2 === 0) requests.push(bench.call('POST', `/licenses/${license.license_id}/revoke`, { query: { dry_run: 'false' }, key: freshKey(), body: {} }));
      for (const [n, machineId] of machines.entries()) {
        requests.push(
          n === 0
            ? bench.call('DELETE', `/machines/${machineId}`, { query: { dry_run: 'false' }, key: freshKey() })
            : n === 1
              ? bench.call('POST', '/dsr/delete', { query: { dry_run: 'false' }, key: freshKey(), body: { machine_id: machineId } })
              : bench.call('POST', `/machines/${machineId}/revoke`, { query: { dry_run: 'false' }, key: freshKey(), body: {} }),
        );
      }
    }
    const answers = await Promise.all(requests);
    expect(answers.filter((answer) => answer.status >= 500).map((answer) => answer.text)).toEqual([]);
    // A machine erased first is 404 to the later requests; a revocation racing a license erasure may find it busy (409).
    expect(answers.every((answer) => [200, 404, 409].includes(answer.status))).toBe(true);
    const { rows } = await bench.sql.query('SELECT 1 FROM license_machines WHERE license_id = ANY($1::text[])', [licenses.map((license) => license.license_id)]);
    expect(rows).toHaveLength(0);
    expect((await bench.call('POST', '/audit/verify', { body: {} })).body.verified).toBe(true);
  }, 120_000);
});
