import { expect, it } from 'vitest';
import { SqlError, type SqlClient } from '@tollgate/core';
import { randomId } from '@tollgate/core/crypto';
import { describeConformance, raceCase, testDatabaseEngines, type TestDatabase } from '@tollgate/core/testing';
import { createSqlLicenseStore, createSqlSubscriptionStore, hashLicenseKey, type NewLicense } from '../../../src/license/model/licenses';
import { createSqlMachineStore } from '../../../src/license/model/machines';
import { seedKeyHashKey, seedLicense, seedMachine, seedPolicy, seedTime, seedVendor } from '../admin/license-admin-fixtures';
import { openLicenseTestDatabase } from '../license-test-database';

interface Fixture extends TestDatabase {
  second: SqlClient;
}

const at = (ms: number) => new Date(seedTime.getTime() + ms);

async function owner(sql: SqlClient, policy: Record<string, unknown> = {}) {
  const { vendorId, productId } = await seedVendor(sql);
  return { vendorId, productId, policyId: await seedPolicy(sql, vendorId, productId, policy) };
}

function newLicense(of: { vendorId: string; productId: string; policyId: string }, keyHash = hashLicenseKey(seedKeyHashKey, randomId().slice(0, 30).toUpperCase()) as string): NewLicense {
  return { licenseId: randomId(), ...of, keyHash, keyHint: 'ABCD', accountId: null, seatsOverride: null, expiresAt: null, metadata: { crm: 'x-1' }, createdAt: seedTime };
}

for (const engine of await testDatabaseEngines()) {
  describeConformance(
    'License and machine stores',
    { name: engine.name, open: async (): Promise<Fixture> => {
      const database = await openLicenseTestDatabase(engine);
      return { ...database, second: await database.connect() };
    } },
    (fixture) => {
      it('inserts a batch of licenses in one statement, all or none', async () => {
        const { sql } = fixture();
        const of = await owner(sql, { seats: 5, tier: 'basic' });
        const batch = Array.from({ length: 4 }, () => newLicense(of));
        const issued = await createSqlLicenseStore(sql).insertMany(batch);
        expect(issued.map((license) => license.licenseId).sort()).toEqual(batch.map((license) => license.licenseId).sort());
        expect(issued[0]).toMatchObject({ status: 'active', policySeats: 5, policyTier: 'basic', metadata: { crm: 'x-1' }, entitlementOverrides: { add: [], remove: [] } });

        // The fifth row repeats the first's key hash: the unique index refuses it, and nothing of the batch stays.
        const doomed = Array.from({ length: 4 }, () => newLicense(of));
        doomed.push(newLicense(of, (doomed[0] as NewLicense).keyHash));
        await expect(createSqlLicenseStore(sql).insertMany(doomed)).rejects.toBeInstanceOf(SqlError);
        const { rows } = await sql.query<{ count: string }>('SELECT count(*) AS count FROM license_licenses');
        expect(Number(rows[0]?.count)).toBe(4);
      });

      it('reads, updates and locks a license only through its own vendor', async () => {
        const { sql } = fixture();
        const a = await owner(sql);
        const b = await owner(sql);
        const { license } = await seedLicense(sql, a);
        const licenses = createSqlLicenseStore(sql);
        expect(await licenses.get(b.vendorId, license.licenseId)).toBeUndefined();
        expect(await licenses.update(b.vendorId, license.licenseId, { status: 'suspended' }, at(1))).toEqual({ kind: 'not_found' });
        expect(await sql.transaction((tx) => createSqlLicenseStore(tx).lockForRevocation(b.vendorId, license.licenseId))).toEqual({ kind: 'not_found' });
        expect((await licenses.get(a.vendorId, license.licenseId))?.status).toBe('active');
      });

      it('updates only the named fields and never a revoked license', async () => {
        const { sql } = fixture();
        const a = await owner(sql);
        const { license } = await seedLicense(sql, a);
        const licenses = createSqlLicenseStore(sql);
        const outcome = await licenses.update(a.vendorId, license.licenseId, { status: 'suspended', seatsOverride: 9, versionScopeOverride: { min: '1.0.0' } }, at(5));
        expect(outcome).toMatchObject({ kind: 'updated', license: { status: 'suspended', seatsOverride: 9, versionScopeOverride: { min: '1.0.0' }, updatedAt: at(5) } });
        expect(await licenses.markRevoked(license.licenseId, { at: at(6), seq: 3, reason: 2 })).toMatchObject({ status: 'revoked', revocationSeq: 3, revocationReason: 2, revokedAt: at(6) });
        expect(await licenses.markRevoked(license.licenseId, { at: at(7), seq: 4, reason: null })).toBeUndefined();
        expect(await licenses.update(a.vendorId, license.licenseId, { status: 'active' }, at(8))).toEqual({ kind: 'revoked' });
        expect((await licenses.get(a.vendorId, license.licenseId))?.seatsOverride).toBe(9);
      });

      it('lists a product newest first with shown-status filters and stable cursors', async () => {
        const { sql } = fixture();
        const a = await owner(sql);
        const made = [];
        for (let n = 0; n < 5; n += 1) made.push((await seedLicense(sql, a, { createdAt: at(n < 3 ? 0 : n * 1000) })).license);
        const expired = (await seedLicense(sql, a, { expiresAt: at(10), createdAt: at(1) })).license;
        const licenses = createSqlLicenseStore(sql);
        const now = at(60_000);
        const all = await licenses.list(a.vendorId, { productId: a.productId, now, limit: 50 });
        expect(all).toHaveLength(6);
        const keys = all.map((license) => [license.createdAt.getTime(), license.licenseId] as const);
        expect(keys).toEqual([...keys].sort((x, y) => y[0] - x[0] || (x[1] < y[1] ? 1 : -1)));

        const paged: string[] = [];
        let after: { at: number; id: string } | undefined;
        for (;;) {
          const page = await licenses.list(a.vendorId, { productId: a.productId, now, limit: 2, ...(after ? { after } : {}) });
          paged.push(...page.map((license) => license.licenseId));
          const last = page[page.length - 1];
          if (page.length < 2 || last === undefined) break;
          after = { at: last.createdAt.getTime(), id: last.licenseId };
        }
        expect(paged).toEqual(all.map((license) => license.licenseId));

        expect((await licenses.list(a.vendorId, { productId: a.productId, now, status: 'expired', limit: 50 })).map((l) => l.licenseId)).toEqual([expired.licenseId]);
        expect(await licenses.list(a.vendorId, { productId: a.productId, now, status: 'active', limit: 50 })).toHaveLength(5);
        await licenses.update(a.vendorId, (made[0] as { licenseId: string }).licenseId, { status: 'suspended' }, now);
        expect(await licenses.list(a.vendorId, { productId: a.productId, now, status: 'suspended', limit: 50 })).toHaveLength(1);
        expect(await licenses.list((await seedVendor(sql)).vendorId, { productId: a.productId, now, limit: 50 })).toEqual([]);
      });

      it('inserts machines under the vendor, one active machine per fingerprint and license', async () => {
        const { sql } = fixture();
        const a = await owner(sql);
        const b = await owner(sql);
        const { license } = await seedLicense(sql, a);
        const machines = createSqlMachineStore(sql);
        const base = { machineId: randomId(), licenseId: license.licenseId, vendorId: a.vendorId, fingerprintHash: 'f'.repeat(64), devicePublicKey: new Uint8Array(32), createdAt: seedTime };
        expect(await machines.insert({ ...base, vendorId: b.vendorId })).toEqual({ kind: 'license_not_found' });
        expect(await machines.insert(base)).toMatchObject({ kind: 'inserted', machine: { status: 'active', name: null, lastSeenAt: seedTime } });
        expect(await machines.insert({ ...base, machineId: randomId() })).toEqual({ kind: 'fingerprint_active' });
        await machines.markRevoked(base.machineId, { at: at(1), seq: 1 });
        expect((await machines.insert({ ...base, machineId: randomId() })).kind).toBe('inserted');
        expect(await machines.get(b.vendorId, base.machineId)).toBeUndefined();
      });

      it('lists, counts, revokes and deletes machines', async () => {
        const { sql } = fixture();
        const a = await owner(sql);
        const { license } = await seedLicense(sql, a);
        const { license: second } = await seedLicense(sql, a);
        const ms = [];
        for (let n = 0; n < 4; n += 1) ms.push(await seedMachine(sql, license, { createdAt: at(n) }));
        const elsewhere = await seedMachine(sql, second);
        const machines = createSqlMachineStore(sql);
        expect((await machines.list(a.vendorId, { licenseId: license.licenseId, limit: 10 })).map((m) => m.machineId)).toEqual(ms.map((m) => m.machineId).reverse());
        expect(await machines.list(a.vendorId, { limit: 10 })).toHaveLength(5);
        const page = await machines.list(a.vendorId, { licenseId: license.licenseId, limit: 2, after: { at: at(2).getTime(), id: (ms[2] as { machineId: string }).machineId } });
        expect(page.map((m) => m.machineId)).toEqual([ms[1]?.machineId, ms[0]?.machineId]);
        await machines.markRevoked((ms[0] as { machineId: string }).machineId, { at: at(9), seq: 1 });
        expect(await machines.countUnrevoked(license.licenseId)).toBe(3);
        expect(await machines.revokeAllOfLicense(license.licenseId, { at: at(10), seq: 2 })).toBe(3);
        expect(await machines.list(a.vendorId, { status: 'revoked', limit: 10 })).toHaveLength(4);
        expect((await machines.get(a.vendorId, elsewhere.machineId))?.status).toBe('active');
        expect(await machines.delete(elsewhere.machineId)).toBe(1);
        expect(await machines.get(a.vendorId, elsewhere.machineId)).toBeUndefined();
      });

      it('keeps one subscription per license, scoped to the license vendor', async () => {
        const { sql } = fixture();
        const a = await owner(sql);
        const b = await owner(sql);
        const { license } = await seedLicense(sql, a);
        const subscriptions = createSqlSubscriptionStore(sql);
        const subscription = { licenseId: license.licenseId, vendorId: a.vendorId, provider: 'stripe' as const, externalId: 'sub_1', status: 'active' as const, currentPeriodEnd: at(1000) };
        await subscriptions.put(subscription, at(1));
        expect(await subscriptions.put({ ...subscription, status: 'past_due' }, at(2))).toMatchObject({ status: 'past_due', createdAt: at(1), updatedAt: at(2) });
        expect(await subscriptions.get(b.vendorId, license.licenseId)).toBeUndefined();
        await expect(subscriptions.put({ ...subscription, vendorId: b.vendorId, externalId: 'sub_2' }, at(3))).rejects.toThrow(/No license/);
      });

      raceCase('reports a license row held by another transaction as busy at once, and stays usable', fixture, async () => {
        const { sql, second } = fixture();
        const a = await owner(sql);
        const { license } = await seedLicense(sql, a);
        let release: () => void = () => undefined;
        const held = new Promise<void>((resolve) => (release = resolve));
        let locked: () => void = () => undefined;
        const isLocked = new Promise<void>((resolve) => (locked = resolve));
        const holder = sql.transaction(async (tx) => {
          expect((await createSqlLicenseStore(tx).lockForRevocation(a.vendorId, license.licenseId)).kind).toBe('locked');
          locked();
          await held;
        });
        await isLocked;
        const outcome = await second.transaction(async (tx) => {
          const lock = await createSqlLicenseStore(tx).lockForRevocation(a.vendorId, license.licenseId);
          // The savepoint absorbed the refusal: the transaction still answers.
          const { rows } = await tx.query<{ one: number }>('SELECT 1 AS one');
          return { lock, one: rows[0]?.one };
        });
        release();
        await holder;
        expect(outcome).toEqual({ lock: { kind: 'busy' }, one: 1 });
      });
    },
  );
}
