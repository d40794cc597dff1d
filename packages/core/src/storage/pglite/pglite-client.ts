import { PGlite, type PGliteOptions, type QueryOptions, type Transaction } from '@electric-sql/pglite';
import type { SqlClient, SqlParam, SqlQueryResult, SqlRow, SqlTransactionOptions } from '../sql-client';
import { decodeSqlValue, decodedTypeOids } from '../sql-decode';
import { toSqlError } from '../sql-error';
import { encodeSqlParams } from '../sql-params';
import { pgliteStatementsOf, type PgliteStatements } from './pglite-statements';
import { createTransactionScope, transactionModeSql, withSerializationRetry, type SqlSession } from '../sql-transaction';

/** Options of {@link createPgliteClient}: give a `dataDir`, an existing `db`, or neither (in memory). */
export interface PgliteClientOptions {
  /** Directory of the database on disk (created on first use). In memory when omitted. */
  dataDir?: string;
  /**
   * An open PGlite instance to use instead of creating one. The client takes over its type handling
   * per query and sets the session to `TimeZone=UTC`, `DateStyle=ISO`; `close()` leaves it open.
   */
  db?: PGlite;
  /** Extra options for the PGlite instance the client creates (ignored with `db`). */
  pgliteOptions?: Omit<PGliteOptions, 'dataDir' | 'parsers' | 'serializers'>;
}

/** A {@link SqlClient} over PGlite, exposing the instance (for example to share it with a second client). */
export interface PgliteSqlClient extends SqlClient {
  /** The underlying PGlite instance. */
  readonly db: PGlite;
}

type PgliteExecutor = Pick<Transaction, 'query' | 'exec'>;

// PGlite decodes values itself, differently from pg (int8 → number, bytea → Uint8Array subclass…).
// Overriding its parser for every type it knows routes all values through decodeSqlValue, and
// identity serializers make it send the text encodeSqlParams produced, exactly as pg does.
function createQueryOptions(db: PGlite): () => QueryOptions {
  let cached: QueryOptions | undefined;
  let knownTypeCount = -1;
  return () => {
    const typeCount = Object.keys(db.parsers).length + Object.keys(db.serializers).length;
    if (cached === undefined || typeCount !== knownTypeCount) {
      const parsers: Record<number, (text: string) => unknown> = {};
      const oids = new Set([...Object.keys(db.parsers).map(Number), ...decodedTypeOids]);
      for (const oid of oids) if (Number.isInteger(oid)) parsers[oid] = (text) => decodeSqlValue(text, oid);
      const serializers: Record<number, (value: unknown) => string> = {};
      for (const key of Object.keys(db.serializers).map(Number)) {
        if (Number.isInteger(key)) serializers[key] = (value) => value as string;
      }
      cached = { parsers, serializers };
      knownTypeCount = typeCount;
    }
    return cached;
  };
}

function createSession(executor: PgliteExecutor, statements: PgliteStatements, queryOptions: () => QueryOptions, inTransaction: boolean): SqlSession {
  return {
    async query<Row extends SqlRow = SqlRow>(text: string, params?: readonly SqlParam[]): Promise<SqlQueryResult<Row>> {
      return statements.run<Row>(text, encodeSqlParams(params), inTransaction);
    },
    async exec(script: string): Promise<void> {
      try {
        await executor.exec(script, queryOptions());
      } catch (error) {
        throw toSqlError(error);
      } finally {
        // A script may change the schema (migrations): plans prepared before it are not reused.
        statements.forgetAll();
      }
    },
  };
}

/**
 * Opens a {@link SqlClient} over PGlite (Postgres compiled to WebAssembly, in process): the embedded
 * default. PGlite is a single connection; its own locks queue every `query()` behind an open
 * transaction, so concurrent callers never interleave into someone else's transaction.
 *
 * @param options - `dataDir` (on disk), `db` (an existing instance), or nothing (in memory)
 * @returns a ready client; `close()` closes the instance if this function created it
 *
 * @example
 * ```ts
 * import { createPgliteClient } from '@tollgate/core/pglite';
 * import { runMigrations, coreMigrations } from '@tollgate/core';
 * const sql = await createPgliteClient({ dataDir: './.tollgate/db' });
 * await runMigrations(sql, coreMigrations);
 * ```
 */
export async function createPgliteClient(options: PgliteClientOptions = {}): Promise<PgliteSqlClient> {
  if (options.db !== undefined && options.dataDir !== undefined) {
    throw new TypeError('Pass either dataDir or db to createPgliteClient, not both.');
  }
  const ownsDb = options.db === undefined;
  const db =
    options.db ??
    (await PGlite.create({ ...options.pgliteOptions, ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }) }));
  await db.waitReady;
  const queryOptions = createQueryOptions(db);
  const statements = pgliteStatementsOf(db);
  const session = createSession(db, statements, queryOptions, false);
  // Session settings that make text output (and so decoding) identical to the pg driver's sessions.
  await session.exec("SET TimeZone TO 'UTC'; SET DateStyle TO 'ISO, MDY'");
  let closed = false;

  const runTransactionOnce = async <T>(fn: (tx: SqlClient) => Promise<T>, mode: string | null): Promise<T> => {
    try {
      return await db.transaction(async (tx) => {
        const txSession = createSession(tx, statements, queryOptions, true);
        if (mode !== null) await txSession.query(`SET TRANSACTION ${mode}`);
        const scope = createTransactionScope(txSession);
        try {
          return await fn(scope.client);
        } finally {
          scope.end();
        }
      });
    } catch (error) {
      throw toSqlError(error);
    }
  };

  return {
    db,
    query: (text, params) => session.query(text, params),
    exec: (script) => session.exec(script),
    async transaction<T>(fn: (tx: SqlClient) => Promise<T>, transactionOptions?: SqlTransactionOptions): Promise<T> {
      const mode = transactionModeSql(transactionOptions);
      return withSerializationRetry(
        () => runTransactionOnce(fn, mode),
        transactionOptions?.retrySerializationFailures ?? 0,
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      if (ownsDb) await db.close();
    },
  };
}
