/**
 * Fault injection with the real database, for crash tests ("what if the process dies right here?"): a
 * trigger that raises on one chosen write stops an operation at that exact statement, on PGlite and on
 * PostgreSQL alike, without mocking anything the server runs. A deferred constraint trigger instead fails
 * the COMMIT itself, once every write of the transaction has run.
 */
import { hexEncode, type SqlClient } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';

/** Where the injected failure strikes. */
export interface InjectedFault {
  /** The table whose write fails. */
  readonly table: string;
  /** The write that fails. */
  readonly on: 'INSERT' | 'UPDATE';
  /** A condition on `NEW` (SQL), e.g. `NEW.action = 'epoch.revoke'`; every row when absent. */
  readonly when?: string;
  /** Fail at COMMIT (after every statement of the transaction ran) instead of at the write itself. */
  readonly atCommit?: boolean;
}

/** The message of the injected exception: an answer must never carry it. */
export const injectedFaultMessage = 'injected fault: the process died here';

/** A short label of a fault for test names and assertion messages. */
export const describeFault = (fault: InjectedFault): string =>
  `${fault.on} ${fault.table}${fault.when === undefined ? '' : ` when ${fault.when}`}${fault.atCommit === true ? ' (at commit)' : ''}`;

/**
 * Runs `body` while `fault` is armed, then disarms it (also when `body` throws).
 *
 * @param sql - The server's database.
 * @param fault - The write to fail.
 * @param body - The calls to make meanwhile.
 * @returns What `body` returned.
 *
 * @example
 * ```ts
 * const answer = await withFault(bench.sql, { table: 'license_audit_events', on: 'INSERT' }, () => bench.call('POST', path, options));
 * expect(answer.status).toBe(500);
 * ```
 */
export async function withFault<T>(sql: SqlClient, fault: InjectedFault, body: () => Promise<T>): Promise<T> {
  const name = `test_fault_${hexEncode(randomBytes(6))}`;
  const when = fault.when === undefined ? '' : ` WHEN (${fault.when})`;
  await sql.query(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${injectedFaultMessage}'; END; $$`);
  await sql.query(
    fault.atCommit === true
      ? `CREATE CONSTRAINT TRIGGER ${name} AFTER ${fault.on} ON ${fault.table} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW${when} EXECUTE FUNCTION ${name}()`
      : `CREATE TRIGGER ${name} BEFORE ${fault.on} ON ${fault.table} FOR EACH ROW${when} EXECUTE FUNCTION ${name}()`,
  );
  try {
    return await body();
  } finally {
    await sql.query(`DROP TRIGGER IF EXISTS ${name} ON ${fault.table}`);
    await sql.query(`DROP FUNCTION IF EXISTS ${name}()`);
  }
}
