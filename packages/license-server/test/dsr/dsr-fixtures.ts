/**
 * Seeds for the data-subject-request suites: one subject (a license with machines) with a row in every
 * table that holds subject data, written the way their writers write them (straight to the tables: the
 * client protocol, billing and telemetry have their own suites), plus readers that look for a subject's
 * identifiers in every `license_…` table.
 */
import { hexEncode } from '@tollgate/core';
import { randomBytes, randomId } from '@tollgate/core/crypto';
import { deriveTelemetryPseudonymKey, telemetrySubject, type BootstrappedVendor } from '@tollgate/core/license';
import type { TestEngine } from '@tollgate/core/testing';
import type { StartLicenseOptions } from '@tollgate/license-server';
import { freshKey, openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { issueLicenses, seedMachines, seedPolicy, seedSubscription, snapshotTables } from '../admin/admin-license-fixtures';

/** The master key the DSR benches run with (the pseudonym keys derive from it). */
export const dsrMasterKeyHex = 'd5'.repeat(32);
export const dsrMasterKey = Uint8Array.from({ length: 32 }, () => 0xd5);

/** A bench for the DSR suites, optionally with shrunken bounds. */
export async function openDsrBench(engine: TestEngine, bounds: Record<string, number> = {}): Promise<AdminHarness> {
  const options: StartLicenseOptions & { dsr: { bounds: Record<string, number> } } = { dsr: { bounds } };
  return openAdminHarness(engine, { LICENSE_MASTER_KEY: dsrMasterKeyHex }, options);
}

/** A seeded subject: a license, its machines and the ids of the rows seeded around them. */
export interface SeededSubject {
  readonly licenseId: string;
  readonly machineIds: readonly string[];
  readonly accountId: string;
  /** Telemetry pseudonyms of the machines. */
  readonly telemetrySubjects: readonly string[];
}

/** Raw T1 rows of a machine on the given UTC days (one per day). */
export async function seedTelemetry(bench: AdminHarness, vendor: BootstrappedVendor, machineId: string, days: readonly string[]): Promise<void> {
  const subject = telemetrySubject(deriveTelemetryPseudonymKey(dsrMasterKey), machineId);
  for (const day of days) {
    await bench.sql.query(
      `INSERT INTO license_telemetry_raw (vendor_id, product_id, subject, consent_version, window_start, session_count, duration_under_5m, duration_under_30m, duration_under_2h, duration_2h_plus, feature_hits, days_active, received_at)
       VALUES ($1, $2, $3, 1, 0, 4, 1, 2, 1, 0, '{"export":3}', 2, $4)`,
      [vendor.vendorId, vendor.productId, subject, new Date(`${day}T12:00:00Z`)],
    );
  }
}

/** The client protocol's records of one machine: an idempotent answer, an offline answer, a nonce. */
export async function seedActivationRecords(bench: AdminHarness, licenseId: string, machineId: string): Promise<void> {
  const later = new Date(Date.now() + 86_400_000);
  await bench.sql.query(
    `INSERT INTO license_client_idempotency (route, scope, key_hash, request_digest, machine_id, status, body, created_at, expires_at)
     VALUES ('activate', $1, $2, $3, $4, 200, $5, now(), $6)`,
    [randomBytes(32), randomBytes(32), randomBytes(32), machineId, randomBytes(40), later],
  );
  await bench.sql.query('INSERT INTO license_offline_responses (license_id, nonce, machine_id, body, created_at, expires_at) VALUES ($1, $2, $3, $4, now(), $5)', [
    licenseId,
    randomBytes(32),
    machineId,
    randomBytes(40),
    later,
  ]);
  await bench.sql.query("INSERT INTO license_client_nonces (scope, nonce, expires_at) VALUES (decode($1, 'hex'), $2, $3)", [machineId, randomBytes(32), later]);
}

/**
 * A license of `vendor` with `machines` machines, an account with a session, metadata naming a person,
 * a subscription with a billing event and a payment, suspicion signals, and per machine activation
 * records and two days of raw telemetry.
 */
export async function seedSubject(bench: AdminHarness, vendor: BootstrappedVendor, machines = 2): Promise<SeededSubject> {
  const accountId = randomId();
  await bench.sql.query(
    `INSERT INTO license_accounts (account_id, vendor_id, product_id, email, password_hash, max_devices, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'scrypt$15$8$1$c2FsdA$aGFzaA', 5, now(), now())`,
    [accountId, vendor.vendorId, vendor.productId, `${accountId}@example.com`],
  );
  await bench.sql.query(
    `INSERT INTO license_account_sessions (session_id, account_id, vendor_id, product_id, access_hash, access_expires_at, refresh_hash, refresh_expires_at, generation, created_at, rotated_at)
     VALUES ($1, $2, $3, $4, $5, now() + interval '1 hour', $6, now() + interval '30 days', 0, now(), now())`,
    [randomId(), accountId, vendor.vendorId, vendor.productId, hexEncode(randomBytes(32)), hexEncode(randomBytes(32))],
  );
  const policyId = await seedPolicy(bench, vendor);
  const [license] = await issueLicenses(bench, policyId, { account_id: accountId, metadata: { customer: 'Ada Lovelace', email: 'ada@example.com' } }, vendor.token);
  const licenseId = license?.license_id as string;
  const machineIds = await seedMachines(bench, vendor, licenseId, machines);
  await seedSubscription(bench, vendor, licenseId);
  await bench.sql.query(
    `INSERT INTO license_billing_events (provider, event_id, event_type, event, status, attempts, next_attempt_at, received_at, processed_at, outcome, license_id)
     VALUES ('stripe', $1, 'customer.subscription.updated', '{"status":"active"}', 'processed', 1, now(), now(), now(), 'applied', $2)`,
    [`evt_${licenseId}`, licenseId],
  );
  await bench.sql.query("INSERT INTO license_billing_payments (provider, payment_ref, subscription_id, created_at) VALUES ('stripe', $1, $2, now())", [`ch_${licenseId}`, `sub_${licenseId}`]);
  await bench.sql.query("INSERT INTO license_suspicion_signals (product_id, license_id, kind, weight, at) VALUES ($1, $2, 'fingerprint_churn', 5, now())", [vendor.productId, licenseId]);
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  for (const machineId of machineIds) {
    await seedActivationRecords(bench, licenseId, machineId);
    await seedTelemetry(bench, vendor, machineId, [yesterday, today]);
  }
  // An audit event naming a machine (its revocation), besides the license's own issuance event.
  await bench.call('POST', `/machines/${machineIds[0]}/revoke`, { token: vendor.token, body: {}, query: { dry_run: 'false' }, key: freshKey() });
  const key = deriveTelemetryPseudonymKey(dsrMasterKey);
  return { licenseId, machineIds, accountId, telemetrySubjects: machineIds.map((machineId) => telemetrySubject(key, machineId)) };
}

/** The `license_…` tables (base tables of the current schema), by name. */
export async function licenseTables(bench: AdminHarness): Promise<string[]> {
  const { rows } = await bench.sql.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'license\\_%' ORDER BY tablename");
  return rows.map((row) => row.name);
}

/** Per table, how many rows mention any of `needles` in their text form (ids, pseudonyms; bytea shows as hex). */
export async function tablesMentioning(bench: AdminHarness, needles: readonly string[]): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const table of await licenseTables(bench)) {
    const { rows } = await bench.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table} t WHERE t::text LIKE ANY($1::text[])`, [needles.map((needle) => `%${needle}%`)]);
    const count = Number(rows[0]?.n ?? 0);
    if (count > 0) found[table] = count;
  }
  return found;
}

/**
 * Every `license_…` table as text except `skip`, with the analytics events and outbox as their total row
 * count and the aggregates left out: the server's analytics jobs move rows from the outbox into
 * pseudonymised events (and roll them up) at any moment, which changes neither that total nor anything
 * of a subject.
 */
export function stableSnapshot(bench: AdminHarness, skip: readonly string[] = []): Promise<string> {
  return snapshotTables(bench, { skip });
}
