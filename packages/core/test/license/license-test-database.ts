/**
 * Test databases for the license storage suites: the core and license migrations applied, a `reset()`
 * that works despite the feed's and the audit log's TRUNCATE guards, and a way to store a fixture epoch
 * as the ceremony would.
 */
import { coreMigrations, licenseMigrations, type SqlClient } from '@tollgate/core';
import { sealEpochPrivateKey, type EpochStatus } from '@tollgate/core/license';
import { openTestDatabase, type TestDatabase, type TestEngine } from '@tollgate/core/testing';
import { epochCertificateFor, vectorBytes, type EpochFixture } from '../vectors/license-fixtures';

/** The master key the storage suites seal fixture epochs with. */
export const testMasterKey = vectorBytes('store-master-key');

// The feed (migration 002) and the audit log (migration 008) refuse TRUNCATE.
const guardedTables = ['license_revocation_batches', 'license_revocation_head', 'license_audit_events', 'license_audit_heads', 'license_audit_anchors'];

/**
 * Opens a database with the license migrations. Its `reset()` lifts the feed and audit tables' user
 * triggers for the TRUNCATE only (migrations 002 and 008 refuse TRUNCATE, which the generic reset uses),
 * then restores them.
 *
 * @param engine - The test engine.
 * @returns The database.
 */
export async function openLicenseTestDatabase(engine: TestEngine): Promise<TestDatabase> {
  const database = await openTestDatabase({ engine, migrations: [coreMigrations, licenseMigrations] });
  const toggle = (action: 'DISABLE' | 'ENABLE') => database.sql.exec(guardedTables.map((table) => `ALTER TABLE ${table} ${action} TRIGGER USER;`).join('\n'));
  return {
    ...database,
    async reset() {
      await toggle('DISABLE');
      try {
        await database.reset();
      } finally {
        await toggle('ENABLE');
      }
    },
  };
}

/**
 * Stores a fixture epoch as `epoch create` + `epoch load` would: its seed sealed under `masterKey` and,
 * unless pending, its certificate.
 *
 * @param sql - The database.
 * @param fixture - The epoch fixture.
 * @param options - Status (`active` by default), master key, and a certificate other than the fixture's own.
 */
export async function storeFixtureEpoch(
  sql: SqlClient,
  fixture: EpochFixture,
  options: { status?: EpochStatus; masterKey?: Uint8Array; certificate?: Uint8Array } = {},
): Promise<void> {
  const status = options.status ?? 'active';
  const certificate = status === 'pending' ? null : (options.certificate ?? (await epochCertificateFor(fixture)));
  const sealed = sealEpochPrivateKey(options.masterKey ?? testMasterKey, fixture.epochId, fixture.seed);
  await sql.query(
    `INSERT INTO license_epochs (epoch_id, public_key, sealed_private_key, product_scope, not_before, not_after, status, certificate, created_at, activated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [fixture.epochId, fixture.publicKey, sealed, fixture.productScope ?? null, fixture.notBefore, fixture.notAfter, status, certificate, new Date(0), status === 'pending' ? null : new Date(0)],
  );
}
