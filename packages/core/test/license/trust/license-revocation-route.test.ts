/**
 * The atomic parts of the license and machine routes, through core's route table over each engine:
 * issuance is all or nothing, and of concurrent confirmed revocations of one target exactly one
 * revokes and publishes a batch (race cases: PostgreSQL server only).
 */
import { expect, it } from 'vitest';
import { ManualClock, bootstrapVendor, toFetchHandler } from '@tollgate/core';
import { createLicenseAdminApi, readRevocationHead, type AdminProvisioningContext, type BootstrappedVendor } from '@tollgate/core/license';
import { describeConformance, raceCase, testDatabaseEngines, type TestDatabase } from '@tollgate/core/testing';
import { createSqlAuditLog } from '../../../src/license/admin/audit/sql-audit-log';
import { licenseOperations } from '../../../src/license/admin/licenses';
import { machineOperations } from '../../../src/license/admin/machines';
import { vectorEpochs, vectorNow } from '../../vectors/license-fixtures';
import { seedKeyHashKey, seedLicense, seedMachine, seedPolicy } from '../admin/license-admin-fixtures';
import { openLicenseTestDatabase, storeFixtureEpoch, testMasterKey } from '../license-test-database';

const { global } = vectorEpochs;

interface Fixture extends TestDatabase {
  vendor: BootstrappedVendor;
  call(method: string, path: string, options?: { body?: unknown; key?: string; query?: Record<string, string> }): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  published: number[];
}

async function openFixture(database: TestDatabase): Promise<Fixture> {
  const clock = new ManualClock(vectorNow * 1000);
  const audit = createSqlAuditLog(database.sql);
  const published: number[] = [];
  const deps = { sql: database.sql, signingEpochs: () => [{ epoch: global, signer: global.signer }], afterRevocationPublished: ({ seq }: { seq: number }) => published.push(seq) };
  const api = createLicenseAdminApi({
    sql: database.sql,
    masterKey: testMasterKey,
    clock,
    audit,
    tokenPrefix: 'tgla_',
    realm: 'test',
    operations: [...licenseOperations({ ...deps, licenseKeyHashKey: seedKeyHashKey }), ...machineOperations(deps)],
  });
  const handle = toFetchHandler(api.table);
  const provisioning: AdminProvisioningContext = { sql: database.sql, masterKey: testMasterKey, tokenPrefix: 'tgla_', audit, clock };
  let vendor: BootstrappedVendor | undefined;
  return {
    ...database,
    published,
    get vendor() {
      return vendor as BootstrappedVendor;
    },
    async reset() {
      await database.reset();
      published.length = 0;
      await storeFixtureEpoch(database.sql, global);
      vendor = await bootstrapVendor(provisioning, { vendor: 'Acme', product: 'Editor' });
    },
    async call(method, path, options = {}) {
      const url = new URL(`http://admin.test/v1/admin${path}`);
      for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
      const headers: Record<string, string> = { authorization: `Bearer ${(vendor as BootstrappedVendor).token}` };
      if (options.key !== undefined) headers['idempotency-key'] = options.key;
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const response = await handle(new Request(url, { method, headers, ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }) }));
      return { status: response.status, body: await response.json() };
    },
  };
}

const countRows = async (database: TestDatabase, table: string) => Number((await database.sql.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]?.n);

for (const engine of await testDatabaseEngines()) {
  describeConformance('License routes: atomic parts', { name: engine.name, open: async () => openFixture(await openLicenseTestDatabase(engine)) }, (fixture) => {
    it('issues all of count licenses or none', async () => {
      const { sql, vendor, call } = fixture();
      const policyId = await seedPolicy(sql, vendor.vendorId, vendor.productId);
      const issued = await call('POST', '/licenses', { body: { policy_id: policyId, count: 25 }, key: 'issue-25' });
      expect(issued.status).toBe(201);
      expect(issued.body.licenses).toHaveLength(25);
      // A refused request (an unknown account) leaves nothing behind, not even part of the batch.
      const refused = await call('POST', '/licenses', { body: { policy_id: policyId, count: 25, account_id: 'ab'.repeat(16) }, key: 'issue-refused' });
      expect(refused.status).toBe(404);
      expect(await countRows(fixture(), 'license_licenses')).toBe(25);
    });

    it('announces a confirmed revocation after its commit, with the batch seq', async () => {
      const { sql, vendor, call, published } = fixture();
      const policyId = await seedPolicy(sql, vendor.vendorId, vendor.productId);
      const { license } = await seedLicense(sql, { vendorId: vendor.vendorId, productId: vendor.productId, policyId });
      const answer = await call('POST', `/licenses/${license.licenseId}/revoke`, { query: { dry_run: 'false' }, key: 'revoke-1', body: {} });
      expect(answer.status).toBe(200);
      await expect.poll(() => published, { timeout: 5000 }).toEqual([1]);
      expect(await readRevocationHead(sql)).toBe(1);
      // A replay answers from the journal: no second batch, no second announcement.
      const replay = await call('POST', `/licenses/${license.licenseId}/revoke`, { query: { dry_run: 'false' }, key: 'revoke-1', body: {} });
      expect(replay.body).toEqual(answer.body);
      expect(await readRevocationHead(sql)).toBe(1);
      expect(published).toEqual([1]);
    });

    raceCase('lets exactly one of 20 concurrent confirmed license revocations through', fixture, async () => {
      const { sql, vendor, call } = fixture();
      const policyId = await seedPolicy(sql, vendor.vendorId, vendor.productId);
      const { license } = await seedLicense(sql, { vendorId: vendor.vendorId, productId: vendor.productId, policyId });
      for (let n = 0; n < 3; n += 1) await seedMachine(sql, license);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, n) => call('POST', `/licenses/${license.licenseId}/revoke`, { query: { dry_run: 'false' }, key: `race-${n}`, body: { reason: 1 } })),
      );
      const revoked = answers.filter((answer) => answer.status === 200);
      expect(revoked).toHaveLength(1);
      expect(revoked[0]?.body.revocation).toEqual({ seq: 1, machines_revoked: 3 });
      for (const answer of answers.filter((a) => a.status !== 200)) {
        expect(answer.status).toBe(409);
        expect(['revocation_in_progress', 'already_revoked']).toContain(answer.body.error.code);
      }
      expect(await readRevocationHead(sql)).toBe(1);
      expect(await countRows(fixture(), 'license_revocation_batches')).toBe(1);
      expect(await countRows(fixture(), "license_audit_events WHERE action = 'license.revoke'")).toBe(1);
    });

    raceCase('lets exactly one of 20 concurrent confirmed machine revocations through', fixture, async () => {
      const { sql, vendor, call } = fixture();
      const policyId = await seedPolicy(sql, vendor.vendorId, vendor.productId);
      const { license } = await seedLicense(sql, { vendorId: vendor.vendorId, productId: vendor.productId, policyId });
      const machine = await seedMachine(sql, license);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, n) => call('POST', `/machines/${machine.machineId}/revoke`, { query: { dry_run: 'false' }, key: `machine-race-${n}`, body: {} })),
      );
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
      expect(answers.filter((answer) => answer.status === 409)).toHaveLength(19);
      expect(await readRevocationHead(sql)).toBe(1);
    });
  });
}
