import { expect, it } from 'vitest';
import { coreMigrations } from '../storage/migrations/core-migrations';
import { defineMigrations } from '../storage/migrations/define-migrations';
import { MigrationError } from '../storage/migrations/migration-error';
import { migrationsTable, runMigrations } from '../storage/migrations/run-migrations';
import type { SqlClient } from '../storage/sql-client';
import { SqlError } from '../storage/sql-error';
import { describeConformance, type ConformanceSuiteOptions } from './conformance';
import type { SqlConformanceFixture } from './sql-client-conformance';

let sequence = 0;

/** A domain and table prefix no other test uses: the migrations table survives resets. */
function uniqueNames(): { domain: string; table: (name: string) => string } {
  sequence += 1;
  const suffix = `${sequence}_${Math.floor(Math.random() * 1e9).toString(36)}`;
  return { domain: `conformance_${suffix}`, table: (name) => `conformance_${name}_${suffix}` };
}

async function tableExists(sql: SqlClient, table: string): Promise<boolean> {
  const { rows } = await sql.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [table]);
  return rows[0]?.found === true;
}

async function recorded(sql: SqlClient, domain: string) {
  const { rows } = await sql.query<{ version: number; name: string; checksum: string; applied_at: Date }>(
    `SELECT version, name, checksum, applied_at FROM ${migrationsTable} WHERE domain = $1 ORDER BY version`,
    [domain],
  );
  return rows;
}

/**
 * Conformance suite of `runMigrations` over a {@link SqlClient}: ordered, recorded, exactly-once
 * application (also with two clients racing), refusal when the database is ahead or a checksum
 * drifted, all-or-nothing on failure, and a clean apply of `coreMigrations`.
 *
 * @param options - `name` and `open()` returning a database with a `connect()` for a second client
 *
 * @example
 * ```ts
 * import { describeMigrationRunnerConformance, openTestDatabase } from '@tollgate/core/testing';
 * describeMigrationRunnerConformance({ name: 'pglite', open: () => openTestDatabase() });
 * ```
 */
export function describeMigrationRunnerConformance(options: ConformanceSuiteOptions<SqlConformanceFixture>): void {
  describeConformance('MigrationRunner', options, (fixture) => {
    const sql = () => fixture().sql;

    it('applies pending migrations in order, records them, and does nothing the second time', async () => {
      const { domain, table } = uniqueNames();
      const set = defineMigrations(domain, {
        '002_second.sql': `ALTER TABLE ${table('first')} ADD COLUMN note text;`,
        '001_first.sql': `CREATE TABLE ${table('first')} (id int PRIMARY KEY); INSERT INTO ${table('first')} VALUES (1);`,
      });
      const report = await runMigrations(sql(), set);
      expect(report).toEqual({
        domain,
        applied: [
          { version: 1, name: '001_first.sql' },
          { version: 2, name: '002_second.sql' },
        ],
        currentVersion: 2,
      });
      const rows = await recorded(sql(), domain);
      expect(rows.map(({ version, name, checksum }) => ({ version, name, checksum }))).toEqual(
        set.migrations.map(({ version, name, checksum }) => ({ version, name, checksum })),
      );
      expect(rows[0]?.applied_at).toBeInstanceOf(Date);
      expect(await runMigrations(sql(), set)).toEqual({ domain, applied: [], currentVersion: 2 });
      expect((await sql().query(`SELECT id, note FROM ${table('first')}`)).rows).toEqual([{ id: 1, note: null }]);
    });

    it('applies only the migrations added since the last run', async () => {
      const { domain, table } = uniqueNames();
      const first = { '001_create.sql': `CREATE TABLE ${table('grow')} (id int);` };
      await runMigrations(sql(), defineMigrations(domain, first));
      const grown = defineMigrations(domain, { ...first, '002_index.sql': `CREATE INDEX ON ${table('grow')} (id);` });
      expect((await runMigrations(sql(), grown)).applied).toEqual([{ version: 2, name: '002_index.sql' }]);
    });

    it('keeps domains independent', async () => {
      const one = uniqueNames();
      const two = uniqueNames();
      await runMigrations(sql(), defineMigrations(one.domain, { '001_a.sql': `CREATE TABLE ${one.table('a')} (id int);` }));
      const report = await runMigrations(sql(), defineMigrations(two.domain, { '001_a.sql': `CREATE TABLE ${two.table('a')} (id int);` }));
      expect(report.applied).toEqual([{ version: 1, name: '001_a.sql' }]);
    });

    it('refuses to run when the database has a migration the code does not know', async () => {
      const { domain, table } = uniqueNames();
      const newer = defineMigrations(domain, {
        '001_a.sql': `CREATE TABLE ${table('a')} (id int);`,
        '002_b.sql': `CREATE TABLE ${table('b')} (id int);`,
      });
      await runMigrations(sql(), newer);
      const older = defineMigrations(domain, { '001_a.sql': `CREATE TABLE ${table('a')} (id int);` });
      const error = await runMigrations(sql(), older).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MigrationError);
      expect(error).toMatchObject({ code: 'migration_database_ahead', details: { domain, version: 2, knownVersion: 1 } });
    });

    it('refuses to run when an applied migration changed, applying nothing', async () => {
      const { domain, table } = uniqueNames();
      await runMigrations(sql(), defineMigrations(domain, { '001_a.sql': `CREATE TABLE ${table('a')} (id int);` }));
      const edited = defineMigrations(domain, {
        '001_a.sql': `CREATE TABLE ${table('a')} (id bigint);`,
        '002_b.sql': `CREATE TABLE ${table('b')} (id int);`,
      });
      await expect(runMigrations(sql(), edited)).rejects.toMatchObject({
        code: 'migration_checksum_mismatch',
        details: { domain, version: 1 },
      });
      expect(await tableExists(sql(), table('b'))).toBe(false);
    });

    it('rolls back the whole run when a migration fails', async () => {
      const { domain, table } = uniqueNames();
      const set = defineMigrations(domain, {
        '001_ok.sql': `CREATE TABLE ${table('ok')} (id int);`,
        '002_broken.sql': `CREATE TABLE ${table('broken')} (id int REFERENCES conformance_nowhere (id));`,
      });
      await expect(runMigrations(sql(), set)).rejects.toBeInstanceOf(SqlError);
      expect(await tableExists(sql(), table('ok'))).toBe(false);
      expect(await recorded(sql(), domain)).toEqual([]);
    });

    it('applies each migration once when two clients migrate at the same time', async () => {
      const { domain, table } = uniqueNames();
      // Not idempotent on purpose: a second application would fail on the existing table.
      const set = defineMigrations(domain, {
        '001_a.sql': `CREATE TABLE ${table('a')} (id int); SELECT pg_sleep(0.05);`,
        '002_b.sql': `CREATE TABLE ${table('b')} (id int);`,
      });
      const other = await fixture().connect();
      const reports = await Promise.all([runMigrations(sql(), set), runMigrations(other, set), runMigrations(sql(), set)]);
      expect(reports.flatMap((report) => report.applied).map((migration) => migration.version).sort()).toEqual([1, 2]);
      expect((await recorded(sql(), domain)).map((row) => row.version)).toEqual([1, 2]);
    });

    it('applies the core migrations', async () => {
      const report = await runMigrations(sql(), coreMigrations);
      expect(report.currentVersion).toBe(coreMigrations.migrations.length);
      expect(await tableExists(sql(), 'tollgate_jobs')).toBe(true);
      expect(await tableExists(sql(), 'tollgate_rate_limits')).toBe(true);
    });
  });
}
