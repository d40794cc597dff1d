import type { SqlClient } from '../sql-client';
import type { MigrationSet } from './define-migrations';
import { MigrationError } from './migration-error';

/** The table recording applied migrations (never truncated by test resets). */
export const migrationsTable = 'tollgate_migrations';

/** What {@link runMigrations} did. */
export interface MigrationReport {
  domain: string;
  /** Migrations applied by this call, in order (empty when the database was up to date). */
  applied: { version: number; name: string }[];
  /** Highest version now applied for the domain (0 when the domain has no migrations). */
  currentVersion: number;
}

interface AppliedRow extends Record<string, unknown> {
  version: number;
  name: string;
  checksum: string;
}

/**
 * Brings one domain's schema up to date. In a single transaction it takes an advisory lock (scoped to
 * the current schema, so N instances starting at once apply each migration exactly once: the others
 * wait, then find nothing to do), creates the bookkeeping table if needed, checks what is already
 * applied, then runs the pending migrations in order and records each (domain, version, name,
 * checksum, applied_at). Any failure rolls everything back.
 *
 * @param sql - the database
 * @param set - the domain and its ordered migrations (see `defineMigrations`)
 * @returns which migrations ran and the resulting version
 * @throws MigrationError `migration_database_ahead` when the database has a version the code does not
 *   know; `migration_checksum_mismatch` when an applied migration's file changed;
 *   `migration_list_invalid` when `set` is not numbered 1, 2, 3…; a `SqlError` when a migration fails
 *
 * @example
 * ```ts
 * import { runMigrations, coreMigrations } from '@tollgate/core';
 * const report = await runMigrations(sql, coreMigrations);
 * console.log(`core schema at version ${report.currentVersion}`);
 * ```
 */
export async function runMigrations(sql: SqlClient, set: MigrationSet): Promise<MigrationReport> {
  const { domain, migrations } = set;
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new MigrationError('migration_list_invalid', `Migrations of "${domain}" must be numbered 1, 2, 3… in order.`, {
        details: { domain, position: index, version: migration.version },
      });
    }
  });

  return sql.transaction(async (tx) => {
    // Lock first: CREATE TABLE IF NOT EXISTS itself races when two servers run it at the same time.
    await tx.query(`SELECT pg_advisory_xact_lock(hashtext('tollgate_migrations:' || current_schema()))`);
    await tx.exec(`
      CREATE TABLE IF NOT EXISTS ${migrationsTable} (
        domain text NOT NULL,
        version integer NOT NULL,
        name text NOT NULL,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (domain, version)
      )`);
    const { rows: appliedRows } = await tx.query<AppliedRow>(
      `SELECT version, name, checksum FROM ${migrationsTable} WHERE domain = $1 ORDER BY version`,
      [domain],
    );

    for (const row of appliedRows) {
      const known = migrations[row.version - 1];
      if (known === undefined) {
        throw new MigrationError(
          'migration_database_ahead',
          `The database has ${domain} migration ${row.version} (${row.name}), which this code does not know: it was migrated by a newer release.`,
          { details: { domain, version: row.version, name: row.name, knownVersion: migrations.length } },
        );
      }
      if (known.checksum !== row.checksum || known.name !== row.name) {
        throw new MigrationError(
          'migration_checksum_mismatch',
          `${domain} migration ${row.version} (${row.name}) was changed after it was applied; add a new migration instead.`,
          { details: { domain, version: row.version, name: row.name, file: known.name } },
        );
      }
    }

    const applied: { version: number; name: string }[] = [];
    const appliedVersions = new Set(appliedRows.map((row) => row.version));
    for (const migration of migrations.filter((candidate) => !appliedVersions.has(candidate.version))) {
      await tx.exec(migration.sql);
      await tx.query(`INSERT INTO ${migrationsTable} (domain, version, name, checksum) VALUES ($1, $2, $3, $4)`, [
        domain,
        migration.version,
        migration.name,
        migration.checksum,
      ]);
      applied.push({ version: migration.version, name: migration.name });
    }
    return { domain, applied, currentVersion: migrations.length };
  });
}
