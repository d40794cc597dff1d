import { mkdirSync } from 'node:fs';
import type { SqlClient } from '../storage/sql-client';
import type { MigrationSet } from '../storage/migrations/define-migrations';
import { runMigrations } from '../storage/migrations/run-migrations';
import { pingSql } from '../storage/sql-ping';

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** A PostgreSQL server (`postgres://…`). When absent, an embedded PGlite database in `dataDir`. */
  databaseUrl?: string | undefined;
  /** Directory of the embedded database (created if missing). */
  dataDir: string;
  /** Migration sets to apply in order (core's first, then the service's domains). */
  migrations: readonly MigrationSet[];
  /** Pool size for a PostgreSQL server. */
  poolSize?: number;
}

/** An open, migrated database. */
export interface OpenDatabase {
  sql: SqlClient;
  /** Which engine is behind `sql`. */
  engine: 'pglite' | 'postgres';
  /** Round-trips `SELECT 1` within `timeoutMs`; false when the database does not answer. */
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Opens the database a server runs on — PGlite under `dataDir` by default, or the PostgreSQL server at
 * `databaseUrl` — and applies the migrations (safe with several instances starting at once). Only the
 * chosen driver is loaded.
 *
 * @example
 * ```ts
 * import { openDatabase } from '@tollgate/core/node';
 * import { coreMigrations } from '@tollgate/core';
 * const db = await openDatabase({ dataDir: '.tollgate/gateway/db', migrations: [coreMigrations] });
 * ```
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<OpenDatabase> {
  let sql: SqlClient;
  let engine: OpenDatabase['engine'];
  if (options.databaseUrl) {
    const { createPgClient } = await import('../storage/pg/index');
    sql = createPgClient({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    engine = 'postgres';
  } else {
    mkdirSync(options.dataDir, { recursive: true });
    const { createPgliteClient } = await import('../storage/pglite/index');
    sql = await createPgliteClient({ dataDir: options.dataDir });
    engine = 'pglite';
  }
  try {
    for (const set of options.migrations) await runMigrations(sql, set);
  } catch (error) {
    await sql.close();
    throw error;
  }
  return {
    sql,
    engine,
    ping: (timeoutMs = 2_000) => pingSql(sql, timeoutMs),
    close: () => sql.close(),
  };
}
