import { accessSync, constants, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MigrationSet } from '../storage/migrations/define-migrations';
import { migrationsTable, runMigrations } from '../storage/migrations/run-migrations';
import type { SqlClient } from '../storage/sql-client';
import { ensurePgliteTemplate } from './node-pglite-template';
import { testDatabaseUrlVariable, type TestEngine } from './node-test-engines';

/** A throwaway database for one test file. */
export interface TestDatabase {
  /** Which engine it runs on. */
  readonly engine: TestEngine['name'];
  /** The main client. On `postgres` its pool has `poolSize` connections, so races are real. */
  readonly sql: SqlClient;
  /**
   * Opens another client on the same database (and schema): a second "server instance" for race
   * tests. Closed by {@link TestDatabase.close}. On PGlite it shares the single in-process instance.
   */
  connect(): Promise<SqlClient>;
  /** Empties every table except the migrations table, restarting identities. Fast: use between tests. */
  reset(): Promise<void>;
  /** Closes every client and deletes the database (PGlite directory, or the schema on the server). */
  close(): Promise<void>;
}

/** Options of {@link openTestDatabase}. */
export interface OpenTestDatabaseOptions {
  /** Engine (from `testDatabaseEngines()`) or its name; default `pglite`. */
  engine?: TestEngine | TestEngine['name'];
  /** Migration sets to apply after opening, in order (for example `[coreMigrations]`). */
  migrations?: readonly MigrationSet[];
  /** Connections per pool on `postgres` (default 10). */
  poolSize?: number;
}

function randomSuffix(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

// Copies go to RAM when the machine has a writable /dev/shm: copying ~40 MB of small files to disk
// costs several times more than the rest of opening.
function scratchDir(): string {
  const configured = process.env['TOLLGATE_TEST_SCRATCH_DIR'];
  if (configured !== undefined && configured !== '') return configured;
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

async function truncateAll(sql: SqlClient): Promise<void> {
  const { rows } = await sql.query<{ tablename: string }>(
    `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> $1 ORDER BY tablename`,
    [migrationsTable],
  );
  if (rows.length === 0) return;
  const tables = rows.map((row) => `"${row.tablename.replace(/"/g, '""')}"`).join(', ');
  await sql.query(`TRUNCATE TABLE ${tables} RESTART IDENTITY CASCADE`);
}

/**
 * The PGlite data directory to copy a test database from (for `openTestDatabase`, or into the data
 * directory of an embedded server a test starts): with migrations, a template that has them applied,
 * built once per list of migration sets; without, the plain one the vitest global setup prepared
 * (`TOLLGATE_PGLITE_TEMPLATE_DIR`), else the default. Templates live in `TOLLGATE_TEST_CACHE_DIR` when
 * it is set, else {@link testCacheDir}.
 *
 * @param migrations - Migration sets the copy should already have, in order.
 * @returns The template directory.
 * @example
 * ```ts
 * import { cpSync } from 'node:fs';
 * import { coreMigrations, licenseMigrations } from '@tollgate/core';
 * import { pgliteTestTemplate } from '@tollgate/core/testing';
 * cpSync(await pgliteTestTemplate([coreMigrations, licenseMigrations]), databaseDir, { recursive: true });
 * ```
 */
export async function pgliteTestTemplate(migrations: readonly MigrationSet[] = []): Promise<string> {
  const configured = process.env['TOLLGATE_PGLITE_TEMPLATE_DIR'];
  if (migrations.length === 0 && configured !== undefined && configured !== '') return configured;
  const cacheDir = process.env['TOLLGATE_TEST_CACHE_DIR'];
  return ensurePgliteTemplate({ migrations, ...(cacheDir === undefined || cacheDir === '' ? {} : { cacheDir }) });
}

async function openPglite(migrations: readonly MigrationSet[]): Promise<Omit<TestDatabase, 'reset'>> {
  // A list whose migrations fail cannot make a template: open from the plain one instead, so the failure
  // comes from the runner at open time, as on the server, and the opened database is closed on it.
  const template = await pgliteTestTemplate(migrations).catch(() => pgliteTestTemplate());
  const dataDir = mkdtempSync(join(scratchDir(), 'tollgate-pglite-'));
  try {
    cpSync(template, dataDir, { recursive: true });
    const { createPgliteClient } = await import('../storage/pglite/index');
    const sql = await createPgliteClient({ dataDir });
    return {
      engine: 'pglite',
      sql,
      connect: () => createPgliteClient({ db: sql.db }),
      async close() {
        await sql.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

async function openPostgres(connectionString: string, poolSize: number): Promise<Omit<TestDatabase, 'reset'>> {
  // Loaded lazily: pg is an optional peer dependency, needed only for this engine.
  const { createPgClient } = await import('../storage/pg/index');
  const schema = `tollgate_test_${randomSuffix()}`;
  const admin = createPgClient({ connectionString, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const clients: SqlClient[] = [];
  const open = (): SqlClient => {
    const client = createPgClient({ connectionString, schema, max: poolSize });
    clients.push(client);
    return client;
  };
  return {
    engine: 'postgres',
    sql: open(),
    connect: async () => open(),
    async close() {
      await Promise.all(clients.map((client) => client.close()));
      try {
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await admin.close();
      }
    },
  };
}

/**
 * Opens an empty database for a test file, in well under a second: on PGlite by copying a template
 * data directory prepared once (see `ensurePgliteTemplate`), with the requested migrations already
 * applied; on `postgres` by creating a fresh schema whose clients all run with that `search_path`, then
 * migrating it. Reuse it across the file's tests with `reset()`.
 *
 * @param options - engine, migrations to apply, pool size
 * @returns the database; call `close()` in `afterAll`
 * @throws Error when `postgres` is requested without `TOLLGATE_TEST_DATABASE_URL`, or in the unit tier
 *   (`TOLLGATE_TEST_TIER=unit`, set by its vitest setup file), whose tests open no database
 *
 * @example
 * ```ts
 * import { openTestDatabase } from '@tollgate/core/testing';
 * import { coreMigrations } from '@tollgate/core';
 * const db = await openTestDatabase({ migrations: [coreMigrations] });
 * afterEach(() => db.reset());
 * afterAll(() => db.close());
 * ```
 */
export async function openTestDatabase(options: OpenTestDatabaseOptions = {}): Promise<TestDatabase> {
  if (process.env['TOLLGATE_TEST_TIER'] === 'unit') {
    // The unit tier (tests next to the code) must stay pure and fast: see docs/testing.md.
    throw new Error('openTestDatabase: unit tests open no database. Move this test to the package\'s test/ folder (the integration tier).');
  }
  const requested = options.engine ?? 'pglite';
  const engine: TestEngine = typeof requested === 'string' ? { name: requested } : requested;
  let opened: Omit<TestDatabase, 'reset'>;
  if (engine.name === 'pglite') {
    opened = await openPglite(options.migrations ?? []);
  } else {
    const connectionString = engine.connectionString ?? process.env[testDatabaseUrlVariable];
    if (connectionString === undefined || connectionString === '') {
      throw new Error(`The postgres test engine needs ${testDatabaseUrlVariable} (or an engine with a connectionString).`);
    }
    opened = await openPostgres(connectionString, options.poolSize ?? 10);
  }
  const database: TestDatabase = { ...opened, reset: () => truncateAll(opened.sql) };
  // On PGlite the template already has them: the runner then only checks they are recorded, unchanged.
  try {
    for (const set of options.migrations ?? []) await runMigrations(database.sql, set);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}
