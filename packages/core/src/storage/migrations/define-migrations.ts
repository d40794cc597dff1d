import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { MigrationError } from './migration-error';

/** One numbered SQL migration. */
export interface Migration {
  /** 1, 2, 3…: the order of application, from the file name's number. */
  readonly version: number;
  /** The file name (`001_jobs.sql`). */
  readonly name: string;
  /** The SQL script (one or more statements, no `BEGIN`/`COMMIT`). */
  readonly sql: string;
  /** SHA-256 (hex) of the script with line endings normalised to `\n`. */
  readonly checksum: string;
}

/** The migrations of one domain (`core`, `gateway`, `license`…), ordered by version. */
export interface MigrationSet {
  /** Which component owns these migrations; versions are numbered per domain. */
  readonly domain: string;
  readonly migrations: readonly Migration[];
}

const fileNamePattern = /^(\d+)_([A-Za-z0-9][A-Za-z0-9_-]*)\.sql$/;
const domainPattern = /^[a-z][a-z0-9_-]*$/;

/**
 * Checksum recorded for a migration. Line endings are normalised first, so a checkout that converts
 * `\n` to `\r\n` does not look like an edited migration.
 *
 * @example
 * ```ts
 * import { migrationChecksum } from '@tollgate/core/storage';
 * migrationChecksum('CREATE TABLE t (id int);\n') === migrationChecksum('CREATE TABLE t (id int);\r\n'); // true
 * ```
 */
export function migrationChecksum(sql: string): string {
  return bytesToHex(sha256(new TextEncoder().encode(sql.replace(/\r\n?/g, '\n'))));
}

function invalid(domain: string, message: string, details: Record<string, unknown>): MigrationError {
  return new MigrationError('migration_list_invalid', message, { details: { domain, ...details } });
}

/**
 * Builds a domain's migration list from numbered files (`{ '001_jobs.sql': text, … }`, typically
 * imported as text). The numbers must run 1, 2, 3… without gaps or duplicates, so a migration lost in
 * a merge fails loudly instead of being skipped.
 *
 * @param domain - owner of the migrations (lowercase, e.g. `core`)
 * @param files - file name → SQL text
 * @returns the set, ordered by version
 * @throws MigrationError `migration_list_invalid` on a bad name, a duplicate or missing number, or an empty file
 *
 * @example
 * ```ts
 * import { runMigrations } from '@tollgate/core';
 * import { defineMigrations } from '@tollgate/core/storage';
 * import payments from './migrations/001_payments.sql';
 * export const gatewayMigrations = defineMigrations('gateway', { '001_payments.sql': payments });
 * await runMigrations(sql, gatewayMigrations);
 * ```
 */
export function defineMigrations(domain: string, files: Readonly<Record<string, string>>): MigrationSet {
  if (!domainPattern.test(domain)) {
    throw invalid(domain, `Migration domain "${domain}" must be lowercase letters, digits, "_" or "-".`, {});
  }
  const byVersion = new Map<number, Migration>();
  for (const [name, sql] of Object.entries(files)) {
    const match = fileNamePattern.exec(name);
    if (match === null) {
      throw invalid(domain, `Migration file "${name}" must be named <number>_<name>.sql.`, { file: name });
    }
    const version = Number(match[1]);
    const existing = byVersion.get(version);
    if (existing !== undefined) {
      throw invalid(domain, `Migrations "${existing.name}" and "${name}" share version ${version}.`, {
        version,
        files: [existing.name, name],
      });
    }
    if (sql.trim() === '') throw invalid(domain, `Migration "${name}" is empty.`, { file: name, version });
    byVersion.set(version, { version, name, sql, checksum: migrationChecksum(sql) });
  }
  const migrations = [...byVersion.values()].sort((a, b) => a.version - b.version);
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw invalid(domain, `Migration version ${index + 1} is missing (found ${migration.name}).`, {
        missingVersion: index + 1,
        file: migration.name,
      });
    }
  });
  return { domain, migrations };
}
