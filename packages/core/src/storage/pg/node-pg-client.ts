import pg from 'pg';
import { sha256 } from '../../crypto/hash';
import { hexEncode } from '../../crypto/hex';
import { utf8Encode } from '../../crypto/utf8';
import type { SqlClient, SqlParam, SqlQueryOptions, SqlQueryResult, SqlRow, SqlTransactionOptions } from '../sql-client';
import { decodeSqlValue } from '../sql-decode';
import { SqlError, SqlState, toSqlError } from '../sql-error';
import { encodeSqlParams } from '../sql-params';
import { createTransactionScope, transactionModeSql, withSerializationRetry, type SqlSession } from '../sql-transaction';

/** Options of {@link createPgClient}. */
export interface PgClientOptions {
  /** `postgres://user:password@host:port/database?…` */
  connectionString: string;
  /** Pool size: connections opened at most (default 10). */
  max?: number;
  /**
   * Schema every connection works in (`search_path`), for example to isolate tests or tenants on
   * one database. Lowercase identifier only; the schema must exist.
   */
  schema?: string;
  /** Milliseconds an idle connection stays open (default 10 000). */
  idleTimeoutMillis?: number;
  /** Milliseconds to wait for a connection before failing (default 10 000). */
  connectionTimeoutMillis?: number;
  /** Server-side `statement_timeout` in milliseconds (default: none). */
  statementTimeoutMs?: number;
  /** `application_name` shown in `pg_stat_activity` (default `tollgate`). */
  applicationName?: string;
  /** TLS options, as `pg` takes them. */
  ssl?: pg.PoolConfig['ssl'];
  /**
   * Called when an idle pooled connection fails (the server restarted, a proxy cut it). The pool
   * drops that connection either way; without this option the error is ignored.
   */
  onIdleConnectionError?: (error: Error) => void;
}

const schemaPattern = /^[a-z_][a-z0-9_]{0,62}$/;

// Every value reaches decodeSqlValue as text, exactly as on PGlite.
const typeParsers = {
  getTypeParser: ((oid: number) => (text: string) => decodeSqlValue(text, oid)) as unknown as typeof pg.types.getTypeParser,
};

function startupOptions(schema: string | undefined): string {
  // Startup parameters rather than SET after connect: they apply before the first statement and a
  // bad value fails the connection instead of silently leaving a session misconfigured.
  const settings = ['TimeZone=UTC', 'DateStyle=ISO,MDY'];
  if (schema !== undefined) settings.push(`search_path=${schema}`);
  return settings.map((setting) => `-c ${setting}`).join(' ');
}

const preparedNames = new Map<string, string>();

function preparedName(text: string): string {
  let name = preparedNames.get(text);
  if (name === undefined) {
    name = `tg_${hexEncode(sha256(utf8Encode(text))).slice(0, 32)}`;
    preparedNames.set(text, name);
  }
  return name;
}

function createSession(runner: pg.Pool | pg.PoolClient): SqlSession {
  return {
    async query<Row extends SqlRow = SqlRow>(text: string, params?: readonly SqlParam[], options?: SqlQueryOptions): Promise<SqlQueryResult<Row>> {
      try {
        // Extended protocol always, as PGlite's query() uses: one statement per call on both drivers.
        const config = { text, values: encodeSqlParams(params), queryMode: 'extended' } as pg.QueryConfig;
        // Named after the text itself: node-postgres refuses one name for two texts, and prepares a name
        // once per connection, so the plan is built once per connection instead of on every call.
        if (options?.prepare === true) config.name = preparedName(text);
        const result = await runner.query<Row>(config);
        return { rows: result.rows, rowCount: result.rowCount ?? 0 };
      } catch (error) {
        throw toSqlError(error);
      }
    },
    async exec(script: string): Promise<void> {
      try {
        await runner.query(script);
      } catch (error) {
        throw toSqlError(error);
      }
    },
  };
}

/**
 * Opens a {@link SqlClient} over a `pg` connection pool to a PostgreSQL server: the production driver.
 * Every connection runs with `TimeZone=UTC`, `DateStyle=ISO` and, when `schema` is given, that
 * `search_path`. Each transaction holds one pooled connection from `BEGIN` to `COMMIT`/`ROLLBACK`;
 * pass `retrySerializationFailures` to re-run a transaction that lost a serialization race.
 *
 * @param options - connection string, pool size, schema, timeouts
 * @returns the client; `close()` ends the pool
 *
 * @example
 * ```ts
 * import { createPgClient } from '@tollgate/core/pg';
 * const sql = createPgClient({ connectionString: process.env.DATABASE_URL!, max: 20 });
 * await sql.transaction(async (tx) => { … }, { isolationLevel: 'serializable', retrySerializationFailures: 3 });
 * ```
 */
export function createPgClient(options: PgClientOptions): SqlClient {
  if (options.schema !== undefined && !schemaPattern.test(options.schema)) {
    throw new TypeError('schema must be a lowercase identifier ([a-z_][a-z0-9_]*, at most 63 characters).');
  }
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    idleTimeoutMillis: options.idleTimeoutMillis ?? 10_000,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 10_000,
    application_name: options.applicationName ?? 'tollgate',
    options: startupOptions(options.schema),
    types: typeParsers,
    ...(options.statementTimeoutMs === undefined ? {} : { statement_timeout: options.statementTimeoutMs }),
    ...(options.ssl === undefined ? {} : { ssl: options.ssl }),
  });
  pool.on('error', (error) => options.onIdleConnectionError?.(error));
  const session = createSession(pool);
  let closing: Promise<void> | undefined;

  const runTransactionOnce = async <T>(fn: (tx: SqlClient) => Promise<T>, mode: string | null): Promise<T> => {
    const connection = await pool.connect();
    let connectionBroken: Error | undefined;
    let finished = false;
    try {
      await connection.query(mode === null ? 'BEGIN' : `BEGIN ${mode}`);
      const scope = createTransactionScope(createSession(connection));
      let result: T;
      try {
        result = await fn(scope.client);
      } finally {
        scope.end();
      }
      finished = true;
      const commit = await connection.query('COMMIT');
      // Postgres answers COMMIT of a failed transaction with ROLLBACK and no error; PGlite throws.
      // Throwing here too keeps "fn resolved" meaning "its writes are committed" on both drivers.
      if (commit.command === 'ROLLBACK') {
        throw new SqlError({
          code: SqlState.inFailedTransaction,
          message: 'The transaction was rolled back instead of committed: a statement in it failed.',
        });
      }
      return result;
    } catch (error) {
      const mapped = toSqlError(error);
      if (!finished) {
        try {
          await connection.query('ROLLBACK');
        } catch (rollbackError) {
          connectionBroken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
      } else if (!(mapped instanceof SqlError)) {
        // COMMIT failed without an answer from Postgres: the connection's state is unknown.
        connectionBroken = mapped instanceof Error ? mapped : new Error(String(mapped));
      }
      throw mapped;
    } finally {
      // Releasing with an error destroys the connection instead of pooling a half-open transaction.
      connection.release(connectionBroken);
    }
  };

  return {
    query: (text, params, options) => session.query(text, params, options),
    exec: (script) => session.exec(script),
    async transaction<T>(fn: (tx: SqlClient) => Promise<T>, transactionOptions?: SqlTransactionOptions): Promise<T> {
      const mode = transactionModeSql(transactionOptions);
      return withSerializationRetry(
        () => runTransactionOnce(fn, mode),
        transactionOptions?.retrySerializationFailures ?? 0,
      );
    },
    close() {
      closing ??= pool.end();
      return closing;
    },
  };
}
