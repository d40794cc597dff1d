import { beforeAll, expect, it } from 'vitest';
import type { SqlClient } from '../storage/sql-client';
import { describeConformance, type ConformanceFixture, type ConformanceSuiteOptions } from './conformance';
import { sqlClientTransactionCases } from './sql-client-transaction-cases';
import { sqlClientValueCases } from './sql-client-value-cases';

/** A database for the SQL suites: the client under test and a way to open a second client on it. */
export interface SqlConformanceFixture extends ConformanceFixture {
  /** The client under test. */
  readonly sql: SqlClient;
  /**
   * Opens another client on the same database, like a second server instance (closed by the
   * fixture's `close`). Race cases run across the two.
   */
  connect(): Promise<SqlClient>;
}

/**
 * Conformance suite of the {@link SqlClient} port: value decoding and parameter encoding identical to
 * the built-in drivers, SQLSTATE error mapping, commit/rollback, savepoints, serialisation of
 * concurrent work, isolation options and serialization-failure retries. The suite creates and drops
 * its own `conformance_*` tables.
 *
 * @param options - `name` of the implementation and `open()` returning a fresh database
 *
 * @example
 * ```ts
 * import { describeSqlClientConformance, openTestDatabase } from '@tollgate/core/testing';
 * describeSqlClientConformance({ name: 'pglite', open: () => openTestDatabase() });
 * ```
 */
export function describeSqlClientConformance(options: ConformanceSuiteOptions<SqlConformanceFixture>): void {
  describeConformance('SqlClient', options, (fixture) => {
    const client = () => fixture().sql;
    sqlClientValueCases(client);
    sqlClientTransactionCases(client);

    let second: SqlClient | undefined;
    beforeAll(async () => {
      second = await fixture().connect();
    });

    it('lets racing serializable transactions on two clients all commit when retries are allowed', async () => {
      const clients = [client(), second as SqlClient];
      await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          (clients[index % 2] as SqlClient).transaction(
            async (tx) => {
              const { rows } = await tx.query<{ value: number }>('SELECT value FROM conformance_counter WHERE id = 1');
              await new Promise((resolve) => setTimeout(resolve, 5));
              await tx.query('UPDATE conformance_counter SET value = $1 WHERE id = 1', [(rows[0]?.value ?? 0) + 1]);
            },
            { isolationLevel: 'serializable', retrySerializationFailures: 30 },
          ),
        ),
      );
      expect((await client().query('SELECT value FROM conformance_counter WHERE id = 1')).rows).toEqual([{ value: 6 }]);
    });

    it('closes idempotently', async () => {
      const extra = await fixture().connect();
      await extra.close();
      await expect(extra.close()).resolves.toBeUndefined();
    });
  });
}
