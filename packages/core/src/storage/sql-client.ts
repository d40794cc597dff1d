/**
 * A value that can be bound to a `$n` placeholder. Every driver encodes it the same way, to Postgres
 * text input (see `encodeSqlParam`):
 *
 * | JS value | sent as |
 * |---|---|
 * | `null`, `undefined` | SQL `NULL` |
 * | `string` | as is |
 * | `number`, `bigint` | decimal text (`NaN`/`Infinity` are valid only for float columns) |
 * | `boolean` | `true` / `false` |
 * | `Date` | ISO 8601 in UTC with milliseconds (bind it to a `timestamptz`) |
 * | `Uint8Array` | bytea hex (`\x0aff`) |
 * | array | a Postgres array literal (`{1,2,NULL}`), elements encoded by these rules |
 * | any other object | `JSON.stringify(value)` (bind it to `json`/`jsonb`) |
 *
 * A JS array always becomes a Postgres array: pass `JSON.stringify(list)` to store a JSON array.
 */
export type SqlParam =
  | string
  | number
  | bigint
  | boolean
  | null
  | undefined
  | Date
  | Uint8Array
  | readonly SqlParam[]
  | object;

/** One result row: column name → decoded value. */
export type SqlRow = Record<string, unknown>;

/** Per-statement options of {@link SqlClient.query}. */
export interface SqlQueryOptions {
  /**
   * Keep the statement prepared on each connection (PostgreSQL server: a named statement, planned once per
   * connection instead of on every call; PGlite ignores it). Only for hot statements with a fixed text:
   * every distinct text stays prepared on every pooled connection. Not for PgBouncer in transaction mode.
   */
  readonly prepare?: boolean;
}

/** What {@link SqlClient.query} resolves to. */
export interface SqlQueryResult<Row extends SqlRow = SqlRow> {
  /** Decoded rows (empty for statements without a result set). */
  rows: Row[];
  /**
   * Rows returned by a `SELECT`, or affected by `INSERT`/`UPDATE`/`DELETE` (with or without
   * `RETURNING`); `0` for statements that report no count (DDL, `SET`, …).
   */
  rowCount: number;
}

/** Postgres transaction isolation levels. */
export type SqlIsolationLevel = 'read committed' | 'repeatable read' | 'serializable';

/** Options of a top-level {@link SqlClient.transaction}. Nested transactions accept none of them. */
export interface SqlTransactionOptions {
  /** Isolation level of the transaction; the server default (read committed) when omitted. */
  isolationLevel?: SqlIsolationLevel;
  /** Start the transaction `READ ONLY`. */
  readOnly?: boolean;
  /**
   * How many extra attempts to make when the transaction fails with a serialization failure
   * (`40001`) or a deadlock (`40P01`): the whole callback runs again in a new transaction, so it must
   * not have side effects outside the database. Default `0` (no retry: the {@link SqlError} is thrown).
   */
  retrySerializationFailures?: number;
}

/**
 * The storage port every SQL store in Tollgate talks to: PostgreSQL semantics, two drivers
 * (`@tollgate/core/pglite`, `@tollgate/core/pg`).
 *
 * Contract:
 * - **Values.** Parameters are encoded as described in {@link SqlParam}. Results decode identically on
 *   every driver: `int2`/`int4`/`oid`/`float4`/`float8` → `number`; `int8` and `numeric` → `string`
 *   (exact); `bool` → `boolean`; `text`/`varchar`/`char`/`uuid`/`name` → `string`; `json`/`jsonb` →
 *   the parsed value; `bytea` → `Uint8Array` (never a Node `Buffer`); `timestamptz` → `Date`
 *   (millisecond precision, `infinity` → `new Date(8.64e15)`, `-infinity` → `new Date(-8.64e15)`);
 *   `timestamp`, `date`, `time`, `interval` and every other type → the Postgres text (the session runs
 *   in `TimeZone=UTC`, `DateStyle=ISO`); arrays of the types above → JS arrays; `NULL` → `null`.
 * - **Errors.** A statement refused by Postgres rejects with a {@link SqlError} carrying the SQLSTATE
 *   `code` and, when Postgres names one, the `constraint`.
 * - **Transactions.** `transaction(fn)` runs `fn` with a client scoped to one transaction: it commits
 *   when `fn` resolves and rolls back when it throws (the error is rethrown). The scoped client must be
 *   used for every statement of the transaction; statements on the outer client run outside it (on
 *   PGlite, which has a single connection, they wait until the transaction ends, so awaiting them
 *   inside `fn` deadlocks). Calling `transaction()` on a scoped client nests with a `SAVEPOINT`: a
 *   throw rolls back to the savepoint only. A scoped client refuses statements after its transaction
 *   ended.
 * - **Concurrency.** Any number of `query()`/`transaction()` calls may be in flight; statements of
 *   different transactions never interleave inside one transaction.
 *
 * @example
 * ```ts
 * import { createPgliteClient } from '@tollgate/core/pglite';
 * const sql = await createPgliteClient({ dataDir: './data' });
 * await sql.transaction(async (tx) => {
 *   await tx.query('INSERT INTO notes (body) VALUES ($1)', ['hello']);
 * });
 * const { rows } = await sql.query<{ body: string }>('SELECT body FROM notes');
 * await sql.close();
 * ```
 */
export interface SqlClient {
  /** Runs one statement with `$1…$n` parameters and returns its decoded rows. */
  query<Row extends SqlRow = SqlRow>(text: string, params?: readonly SqlParam[], options?: SqlQueryOptions): Promise<SqlQueryResult<Row>>;
  /**
   * Runs a script of one or more statements without parameters (migrations, DDL). The script must not
   * contain `BEGIN`/`COMMIT`: wrap it in {@link SqlClient.transaction} instead.
   */
  exec(script: string): Promise<void>;
  /** Runs `fn` in a transaction (a savepoint when called on a transaction-scoped client). */
  transaction<T>(fn: (tx: SqlClient) => Promise<T>, options?: SqlTransactionOptions): Promise<T>;
  /**
   * Releases the driver's resources (pool, PGlite instance it created). Idempotent. On a
   * transaction-scoped client it throws: end the transaction by returning from its callback.
   */
  close(): Promise<void>;
}
