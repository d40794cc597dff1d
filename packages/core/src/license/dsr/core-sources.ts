import type { SqlClient } from '../../storage/sql-client';
import type { ErasureScanBudget, MachineErasureStep } from '../model/machines/machine-erasure';
import type { DsrExportRecords, DsrScope, LicenseErasureStep, SubjectDataSource } from './subject-data-source';

// The subject data of the tables the license service itself keeps (migrations 006–013, 017; telemetry and analytics bring their own sources). Rows are
// exported whole with `to_jsonb`, so a column added later is exported without a change here; only
// secrets are left out (keyed hashes of license keys, passwords and tokens: the subject's own copies of
// those are the plaintexts, and the hashes would only help a brute-force attack).

const ids = (scope: DsrScope) => scope.machines.map((machine) => machine.machineId);

async function rowsOf(sql: SqlClient, statement: string, params: unknown[]): Promise<unknown[]> {
  const { rows } = await sql.query<{ row: unknown }>(statement, params as never[]);
  return rows.map((row) => row.row);
}

/**
 * Marks a read as no scan. The scan bounds (MAX_SCAN_DATES, MAX_SCAN_RECORDS, MAX_MATCHED_KEYS) measure
 * the telemetry and analytics scans; these tables are read by indexed id lookups, kept small by their
 * own retention, and bounded per request by MAX_DSR_MACHINES. (A step that charges nothing would be
 * charged its row count.)
 */
function notAScan(scan: ErasureScanBudget | undefined): void {
  scan?.charge({});
}

/**
 * The machine rows and the client protocol's records of each machine (migration 010): idempotency
 * answers of activate/deactivate/offline, archived offline answers, and the nonces scoped by the machine
 * id. Nonces scoped by the device key (activation requests, before a machine exists) stay until they
 * expire (minutes): they are what refuses a replayed activation, which would recreate the erased machine.
 * The export also references the revocation batches that name the machines (or the license).
 */
export const machineRecordsSource: SubjectDataSource = {
  name: 'machine_records',
  async export(sql, scope, scan) {
    const machineIds = ids(scope);
    const records: Record<string, unknown[]> = {
      license_machines: await rowsOf(sql, 'SELECT to_jsonb(m) AS row FROM license_machines m WHERE machine_id = ANY($1::text[]) ORDER BY created_at, machine_id', [machineIds]),
      license_client_idempotency: await rowsOf(
        sql,
        "SELECT to_jsonb(c) - 'key_hash' AS row FROM license_client_idempotency c WHERE machine_id = ANY($1::text[]) ORDER BY created_at, machine_id",
        [machineIds],
      ),
      license_offline_responses: await rowsOf(sql, 'SELECT to_jsonb(o) AS row FROM license_offline_responses o WHERE machine_id = ANY($1::text[]) ORDER BY created_at, machine_id', [machineIds]),
      license_client_nonces: await rowsOf(
        sql,
        `SELECT to_jsonb(n) AS row FROM license_client_nonces n
         WHERE scope IN (SELECT decode(id, 'hex') FROM unnest($1::text[]) AS id) OR scope IN (SELECT device_public_key FROM license_machines WHERE machine_id = ANY($1::text[]))
         ORDER BY expires_at`,
        [machineIds],
      ),
      // Published batches are signed, public and immutable: they keep naming a revoked machine or license
      // after erasure (an offline client must go on refusing it). Only the references are exported, since
      // a batch also names other subjects.
      license_revocation_batches: await rowsOf(
        sql,
        `SELECT jsonb_build_object('seq', seq, 'published_at', published_at) AS row FROM license_revocation_batches
         WHERE seq IN (SELECT revocation_seq FROM license_machines WHERE machine_id = ANY($1::text[]) UNION SELECT revocation_seq FROM license_licenses WHERE license_id = $2)
         ORDER BY seq`,
        [machineIds, scope.subject.kind === 'license' ? scope.license.licenseId : ''],
      ),
    };
    notAScan(scan);
    return records;
  },
  machineErasure: {
    name: 'activation_records',
    async preview(sql, machine, scan) {
      const { rows } = await sql.query<{ n: string }>(
        `SELECT ((SELECT count(*) FROM license_client_idempotency WHERE machine_id = $1)
               + (SELECT count(*) FROM license_offline_responses WHERE machine_id = $1)
               + (SELECT count(*) FROM license_client_nonces WHERE scope = decode($1, 'hex')))::text AS n`,
        [machine.machineId],
      );
      const count = Number(rows[0]?.n ?? 0);
      notAScan(scan);
      return count;
    },
    async run(tx, machine, scan) {
      let count = 0;
      for (const statement of [
        'DELETE FROM license_client_idempotency WHERE machine_id = $1',
        'DELETE FROM license_offline_responses WHERE machine_id = $1',
        "DELETE FROM license_client_nonces WHERE scope = decode($1, 'hex')",
      ]) {
        count += (await tx.query(statement, [machine.machineId])).rowCount;
      }
      notAScan(scan);
      return count;
    },
  } satisfies MachineErasureStep,
};

/**
 * The suspicion signals that name the license (migration 013; they name no machine). Erased for a
 * license subject; the per-product alert state they fed holds no subject identifier and stays.
 */
export const suspicionSource: SubjectDataSource = {
  name: 'suspicion',
  async export(sql, scope, scan): Promise<DsrExportRecords> {
    if (scope.subject.kind !== 'license') return {};
    const rows = await rowsOf(sql, 'SELECT to_jsonb(s) AS row FROM license_suspicion_signals s WHERE license_id = $1 ORDER BY signal_id', [scope.license.licenseId]);
    notAScan(scan);
    return { license_suspicion_signals: rows };
  },
  licenseErasure: {
    name: 'suspicion_signals',
    async preview(sql, license, scan) {
      const { rows } = await sql.query<{ n: string }>('SELECT count(*)::text AS n FROM license_suspicion_signals WHERE license_id = $1', [license.licenseId]);
      const count = Number(rows[0]?.n ?? 0);
      notAScan(scan);
      return count;
    },
    async run(tx, license, scan) {
      const count = (await tx.query('DELETE FROM license_suspicion_signals WHERE license_id = $1', [license.licenseId])).rowCount;
      notAScan(scan);
      return count;
    },
  },
};

const metadataErasure: LicenseErasureStep = {
  name: 'license_metadata',
  async preview(_sql, license, scan) {
    notAScan(scan);
    return Object.keys(license.metadata).length > 0 ? 1 : 0;
  },
  async run(tx, license, scan) {
    notAScan(scan);
    const { rowCount } = await tx.query("UPDATE license_licenses SET metadata = '{}' WHERE license_id = $1 AND metadata <> '{}'", [license.licenseId]);
    return rowCount;
  },
};

/**
 * What is tied to the license itself: its row (without the key hash), its billing subscription, billing
 * events and payments (migration 017), and the accounts of the license and its machines with their
 * sessions (without password or token hashes). For a machine subject only the license row is exported,
 * as the machine's context: the license's other records are about its holder, not the device.
 *
 * Erasure (license subjects only) empties the operator-set `metadata` (where names and emails end up);
 * the license row, its billing records and the accounts stay (docs/decisions.md "Data-subject requests":
 * contract and financial records are kept for the vendor's legal obligations, and an account is its own
 * subject, possibly holding other licenses).
 */
export const licenseRecordsSource: SubjectDataSource = {
  name: 'license_records',
  async export(sql, scope, scan) {
    const licenseId = scope.license.licenseId;
    const records: Record<string, unknown[]> = {
      license_licenses: await rowsOf(sql, "SELECT to_jsonb(l) - 'key_hash' AS row FROM license_licenses l WHERE license_id = $1", [licenseId]),
    };
    if (scope.subject.kind === 'license') {
      const accounts = `SELECT account_id FROM license_licenses WHERE license_id = $1 UNION SELECT account_id FROM license_machines WHERE machine_id = ANY($2::text[])`;
      Object.assign(records, {
        license_subscriptions: await rowsOf(sql, 'SELECT to_jsonb(s) AS row FROM license_subscriptions s WHERE license_id = $1', [licenseId]),
        license_billing_events: await rowsOf(sql, 'SELECT to_jsonb(b) AS row FROM license_billing_events b WHERE license_id = $1 ORDER BY received_at, event_id', [licenseId]),
        license_billing_payments: await rowsOf(
          sql,
          `SELECT to_jsonb(p) AS row FROM license_billing_payments p
           WHERE (provider, subscription_id) IN (SELECT provider, external_id FROM license_subscriptions WHERE license_id = $1) ORDER BY created_at, payment_ref`,
          [licenseId],
        ),
        license_accounts: await rowsOf(sql, `SELECT to_jsonb(a) - 'password_hash' AS row FROM license_accounts a WHERE account_id IN (${accounts}) ORDER BY account_id`, [licenseId, ids(scope)]),
        license_account_sessions: await rowsOf(
          sql,
          `SELECT to_jsonb(s) - 'access_hash' - 'refresh_hash' AS row FROM license_account_sessions s WHERE account_id IN (${accounts}) ORDER BY created_at, session_id`,
          [licenseId, ids(scope)],
        ),
      });
    }
    notAScan(scan);
    return records;
  },
  licenseErasure: metadataErasure,
};

/** Every source of this directory, in export order. */
export const coreSubjectDataSources: readonly SubjectDataSource[] = Object.freeze([licenseRecordsSource, machineRecordsSource, suspicionSource]);
