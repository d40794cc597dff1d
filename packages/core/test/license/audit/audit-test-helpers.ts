/**
 * Helpers of the audit log and anchor suites: vendor rows (the audit tables reference them) and raw
 * changes made the way someone with database access would, past the audit tables' triggers.
 */
import type { SqlClient, SqlParam } from '@tollgate/core';
import { randomId } from '@tollgate/core/crypto';

/**
 * Creates a vendor row.
 *
 * @param sql - The database.
 * @returns The vendor id.
 */
export async function createTestVendor(sql: SqlClient): Promise<string> {
  const vendorId = randomId();
  await sql.query('INSERT INTO license_vendors (vendor_id, name, created_at) VALUES ($1, $2, $3)', [vendorId, 'Acme', new Date(0)]);
  return vendorId;
}

/**
 * Runs one statement with triggers off (`session_replication_role = replica`), as an attacker with raw
 * database access could.
 *
 * @param sql - The database.
 * @param statement - The SQL.
 * @param params - Its parameters.
 */
export async function tamper(sql: SqlClient, statement: string, params: readonly SqlParam[]): Promise<void> {
  await sql.transaction(async (tx) => {
    await tx.query('SET LOCAL session_replication_role = replica');
    await tx.query(statement, params);
  });
}
