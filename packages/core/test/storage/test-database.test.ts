import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { coreMigrations, runMigrations } from '@tollgate/core';
import { defineMigrations, migrationsTable } from '@tollgate/core/storage';
import {
  createScratchDatabase,
  dropScratchDatabases,
  ensurePgliteTemplate,
  openTestDatabase,
  redactConnectionString,
  testDatabaseEngines,
  testDatabaseUrlVariable,
  testRunIdVariable,
} from '@tollgate/core/testing';

const engines = await testDatabaseEngines();

describe.each(engines)('openTestDatabase [$name]', (engine) => {
  it('opens a migrated, isolated database whose reset keeps the migrations', async () => {
    const startedAt = performance.now();
    const database = await openTestDatabase({ engine, migrations: [coreMigrations] });
    const openedInMs = performance.now() - startedAt;
    // An observation, not an assertion: timings depend on the machine.
    console.info(`[tollgate] openTestDatabase(${engine.name}) with core migrations: ${openedInMs.toFixed(0)} ms`);
    try {
      await database.sql.query(`INSERT INTO tollgate_jobs (queue, payload, max_attempts, run_at, created_at, updated_at)
        VALUES ('q', '{}', 1, now(), now(), now())`);
      const second = await database.connect();
      expect((await second.query('SELECT count(*)::int AS n FROM tollgate_jobs')).rows).toEqual([{ n: 1 }]);
      await database.reset();
      expect((await database.sql.query('SELECT count(*)::int AS n FROM tollgate_jobs')).rows).toEqual([{ n: 0 }]);
      expect((await database.sql.query(`SELECT count(*)::int AS n FROM ${migrationsTable}`)).rows).toEqual([
        { n: coreMigrations.migrations.length },
      ]);
      // Identities restart, so ids are predictable across tests.
      const { rows } = await database.sql.query(`INSERT INTO tollgate_jobs (queue, payload, max_attempts, run_at, created_at, updated_at)
        VALUES ('q', '{}', 1, now(), now(), now()) RETURNING id`);
      expect(rows).toEqual([{ id: '1' }]);
    } finally {
      await database.close();
    }
  });

  it('gives every database its own storage and deletes it on close', async () => {
    const first = await openTestDatabase({ engine });
    const second = await openTestDatabase({ engine });
    await first.sql.query('CREATE TABLE only_in_first (id int)');
    expect((await second.sql.query("SELECT to_regclass('only_in_first') IS NULL AS absent")).rows).toEqual([{ absent: true }]);
    const schema = (await first.sql.query<{ schema: string }>('SELECT current_schema() AS schema')).rows[0]?.schema;
    await first.close();
    if (engine.name === 'postgres') {
      const { rows } = await second.sql.query('SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1', [schema]);
      expect(rows).toEqual([{ n: 0 }]);
    }
    await second.close();
  });

  it('closes the database when a migration fails while opening', async () => {
    const broken = defineMigrations('broken', { '001_broken.sql': 'CREATE TABLE broken (id int REFERENCES nowhere (id));' });
    await expect(openTestDatabase({ engine, migrations: [broken] })).rejects.toMatchObject({ code: '42P01' });
  });
});

describe('PGlite test databases', () => {
  it('copy the template prepared by the global setup', () => {
    const template = process.env['TOLLGATE_PGLITE_TEMPLATE_DIR'];
    expect(template).toBeDefined();
    expect(existsSync(join(template as string, 'PG_VERSION'))).toBe(true);
  });

  it('remove their data directory on close', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'tollgate-scratch-test-'));
    vi.stubEnv('TOLLGATE_TEST_SCRATCH_DIR', scratch);
    try {
      const database = await openTestDatabase();
      expect(readdirSync(scratch)).toHaveLength(1);
      await database.close();
      expect(readdirSync(scratch)).toHaveLength(0);
    } finally {
      vi.unstubAllEnvs();
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('ensurePgliteTemplate', () => {
  const cacheDir = mkdtempSync(join(tmpdir(), 'tollgate-template-test-'));
  afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

  it('builds one template when several callers race, leaving no partial directories', async () => {
    const directories = await Promise.all([ensurePgliteTemplate({ cacheDir }), ensurePgliteTemplate({ cacheDir })]);
    expect(new Set(directories).size).toBe(1);
    expect(readdirSync(cacheDir)).toEqual([directories[0]?.slice(cacheDir.length + 1)]);
    expect(existsSync(join(directories[0] as string, 'PG_VERSION'))).toBe(true);
    expect(await ensurePgliteTemplate({ cacheDir })).toBe(directories[0]);
  }, 120_000);

  it('keeps one migrated template per list of migration sets, built once, that the runner finds complete', async () => {
    const plain = await ensurePgliteTemplate({ cacheDir });
    const [migrated, again] = await Promise.all([ensurePgliteTemplate({ cacheDir, migrations: [coreMigrations] }), ensurePgliteTemplate({ cacheDir, migrations: [coreMigrations] })]);
    expect(migrated).toBe(again);
    expect(migrated).not.toBe(plain);
    expect(readdirSync(cacheDir).filter((name) => name.startsWith('.building-'))).toEqual([]);
    // A changed migration (same name, other SQL) is another list: it never reuses the older template.
    const edited = defineMigrations('core', Object.fromEntries(coreMigrations.migrations.map((migration, index) => [migration.name, index === 0 ? `${migration.sql}\n-- edited` : migration.sql])));
    const other = await ensurePgliteTemplate({ cacheDir, migrations: [edited] });
    expect(other).not.toBe(migrated);
    // A directory left where a template belongs, without the marker a finished one has, is rebuilt.
    rmSync(join(other, 'tollgate-template.json'));
    expect(await ensurePgliteTemplate({ cacheDir, migrations: [edited] })).toBe(other);
    expect(existsSync(join(other, 'tollgate-template.json'))).toBe(true);
    // What it holds is what the runner would have written: opened from a copy, nothing is left to apply.
    const { createPgliteClient } = await import('@tollgate/core/pglite');
    const copy = mkdtempSync(join(tmpdir(), 'tollgate-template-copy-'));
    cpSync(migrated, copy, { recursive: true });
    const sql = await createPgliteClient({ dataDir: copy });
    try {
      const recorded = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${migrationsTable}`);
      expect(recorded.rows[0]?.n).toBe(coreMigrations.migrations.length);
      expect(await runMigrations(sql, coreMigrations)).toMatchObject({ applied: [] });
    } finally {
      await sql.close();
      rmSync(copy, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('the unit tier', () => {
  it('refuses to open a test database, naming where such a test belongs', async () => {
    vi.stubEnv('TOLLGATE_TEST_TIER', 'unit');
    try {
      await expect(openTestDatabase()).rejects.toThrow(/unit tests open no database.*test\/ folder/);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('testDatabaseEngines', () => {
  const unreachable = 'postgres://tester:hunter2@127.0.0.1:1/nothing';

  it('runs on PGlite only when no server is configured', async () => {
    expect(await testDatabaseEngines({})).toEqual([{ name: 'pglite' }]);
    expect(await testDatabaseEngines({ [testDatabaseUrlVariable]: '' })).toEqual([{ name: 'pglite' }]);
  });

  it('fails in CI when the configured server is unreachable, without printing its password', async () => {
    const failure = await testDatabaseEngines({ [testDatabaseUrlVariable]: unreachable, CI: 'true' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/unreachable/);
    expect((failure as Error).message).toContain('127.0.0.1:1');
    expect((failure as Error).message).not.toContain('hunter2');
  });

  it('warns and leaves the server out outside CI', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      expect(await testDatabaseEngines({ [testDatabaseUrlVariable]: unreachable })).toEqual([{ name: 'pglite' }]);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('unreachable'));
    } finally {
      warn.mockRestore();
    }
  });

  it('masks passwords in connection strings', () => {
    expect(redactConnectionString('postgres://u:secret@db:5432/x')).toBe('postgres://u:***@db:5432/x');
    expect(redactConnectionString('postgres://u@db/x')).toBe('postgres://u@db/x');
    expect(redactConnectionString('not a url')).toBe('<unparseable connection string>');
  });
});

const server = engines.find((engine) => engine.name === 'postgres');

describe.skipIf(server === undefined)('scratch databases [postgres]', () => {
  const adminUrl = server?.connectionString as string;
  const exists = async (name: string) => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      return (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    } finally {
      await client.end();
    }
  };

  it('are dropped at once outside a test run', async () => {
    const database = await createScratchDatabase(adminUrl, 'tollgate_scratch', {});
    expect(database.name).toMatch(/^tollgate_scratch_[0-9a-f]{12}$/);
    expect(new URL(database.url).pathname).toBe(`/${database.name}`);
    expect(await exists(database.name)).toBe(true);
    await database.drop();
    expect(await exists(database.name)).toBe(false);
  });

  it("are left to the run's teardown inside one, which drops exactly that run's", async () => {
    const [runA, runB] = ['a1b2c3d4e5', 'f6e5d4c3b2'];
    const ofA = await createScratchDatabase(adminUrl, 'tollgate_scratch', { [testRunIdVariable]: runA });
    const ofB = await createScratchDatabase(adminUrl, 'tollgate_scratch', { [testRunIdVariable]: runB });
    expect(ofA.name).toMatch(new RegExp(`^tollgate_scratch_r${runA}_[0-9a-f]{12}$`));
    await ofA.drop();
    expect(await exists(ofA.name)).toBe(true);
    // Several at once (here two droppers for three databases), each dropped exactly once.
    const more = [await createScratchDatabase(adminUrl, 'tollgate_scratch', { [testRunIdVariable]: runA }), await createScratchDatabase(adminUrl, 'tollgate_scratch', { [testRunIdVariable]: runA })];
    expect(await dropScratchDatabases(adminUrl, runA, { concurrency: 2 })).toEqual([ofA, ...more].map((database) => database.name).sort());
    for (const database of [ofA, ...more]) expect(await exists(database.name)).toBe(false);
    expect(await exists(ofB.name)).toBe(true);
    expect(await dropScratchDatabases(adminUrl, runB)).toEqual([ofB.name]);
  });

  it('refuse a prefix or run id that is not a plain identifier', async () => {
    await expect(createScratchDatabase(adminUrl, 'x; DROP DATABASE test')).rejects.toThrow(TypeError);
    await expect(dropScratchDatabases(adminUrl, "%' OR 1=1")).rejects.toThrow(TypeError);
  });
});
