import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { utf8Encode } from '../crypto/utf8';
import type { MigrationSet } from '../storage/migrations/define-migrations';
import { runMigrations } from '../storage/migrations/run-migrations';

const markerFile = 'tollgate-template.json';

/**
 * Where test fixtures are cached: `TOLLGATE_TEST_CACHE_DIR`, else `node_modules/.cache/tollgate` in
 * the nearest ancestor of the working directory that has a `node_modules` folder.
 *
 * @example
 * ```ts
 * import { testCacheDir } from '@tollgate/core/testing';
 * console.log(testCacheDir()); // /repo/node_modules/.cache/tollgate
 * ```
 */
export function testCacheDir(): string {
  const configured = process.env['TOLLGATE_TEST_CACHE_DIR'];
  if (configured !== undefined && configured !== '') return resolve(configured);
  for (let directory = process.cwd(); ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'node_modules'))) return join(directory, 'node_modules', '.cache', 'tollgate');
    if (dirname(directory) === directory) return join(process.cwd(), 'node_modules', '.cache', 'tollgate');
  }
}

// The template is only valid for the PGlite build that wrote it, so its directory is named after it.
function pgliteVersion(): string {
  try {
    const require = createRequire(join(process.cwd(), 'noop.js'));
    const entry = require.resolve('@electric-sql/pglite');
    for (let directory = dirname(entry); dirname(directory) !== directory; directory = dirname(directory)) {
      const manifest = join(directory, 'package.json');
      if (!existsSync(manifest)) continue;
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (parsed.name === '@electric-sql/pglite' && typeof parsed.version === 'string') return parsed.version;
    }
  } catch {
    // Fall through: an unversioned name still works, it is only not invalidated by upgrades.
  }
  return 'unversioned';
}

/** True when `directory` holds a finished template (the marker is written before the atomic rename). */
function isTemplate(directory: string): boolean {
  return existsSync(join(directory, markerFile)) && existsSync(join(directory, 'PG_VERSION'));
}

/** Builds in progress in this process, by template directory: concurrent callers share one. */
const building = new Map<string, Promise<string>>();

/**
 * Builds a template in a temporary directory beside `templateDir` and renames it into place: the first
 * rename wins, and a process that loses the race discards its copy and uses the winner's. Callers in
 * one process share one build. A directory at `templateDir` without the marker can only be left over
 * (a finished template always has it, and builds happen elsewhere): it is removed and the rename retried.
 */
function buildAtomically(cacheDir: string, templateDir: string, build: (buildDir: string) => Promise<void>, marker: object): Promise<string> {
  const pending = building.get(templateDir);
  if (pending !== undefined) return pending;
  const started = (async () => {
    mkdirSync(cacheDir, { recursive: true });
    const buildDir = mkdtempSync(join(cacheDir, '.building-'));
    try {
      await build(buildDir);
      writeFileSync(join(buildDir, markerFile), JSON.stringify(marker));
      try {
        renameSync(buildDir, templateDir);
      } catch (error) {
        // Another process renamed its template first: use that one.
        if (isTemplate(templateDir)) return templateDir;
        if (!existsSync(templateDir)) throw error;
        rmSync(templateDir, { recursive: true, force: true });
        renameSync(buildDir, templateDir);
      }
    } finally {
      rmSync(buildDir, { recursive: true, force: true });
    }
    return templateDir;
  })().finally(() => building.delete(templateDir));
  building.set(templateDir, started);
  return started;
}

/**
 * Bump when what a migrated template holds changes without any migration changing: the runner's own
 * bookkeeping table, or the settings `createPgliteClient` opens a database with.
 */
const migratedTemplateFormat = 1;

/**
 * A short name for a list of migration sets: everything the runner compares (each set's domain, and each
 * migration's version, name and checksum) and the template format, hashed.
 */
function migrationFingerprint(migrations: readonly MigrationSet[]): string {
  const listed = migrations.map((set) => ({ domain: set.domain, migrations: set.migrations.map(({ version, name, checksum }) => [version, name, checksum]) }));
  return bytesToHex(sha256(utf8Encode(JSON.stringify({ format: migratedTemplateFormat, listed })))).slice(0, 16);
}

/** Options of {@link ensurePgliteTemplate}. */
export interface PgliteTemplateOptions {
  /** Where templates are kept (default {@link testCacheDir}). */
  cacheDir?: string;
  /**
   * Migration sets to apply to the template, in order. A template is kept per list (named by the sets'
   * domains, versions and checksums), so a changed migration never reuses an older one.
   */
  migrations?: readonly MigrationSet[];
}

/**
 * Returns the directory of a freshly initialised PGlite data directory to copy test databases from,
 * creating it on first use (initdb takes seconds; copying takes a fraction of one). With `migrations`,
 * the template also has them applied (copied from the plain one, then migrated), so a test database
 * or an embedded server started from it skips the migrations' DDL: the runner then only checks that
 * each is recorded with its checksum. Safe when several processes call it at once: each builds in its
 * own temporary directory and renames it into place atomically; the first rename wins and the others
 * discard their copy.
 *
 * @param options - `cacheDir` to override {@link testCacheDir}; `migrations` to apply
 * @returns absolute path of the template directory
 *
 * @example
 * ```ts
 * import { ensurePgliteTemplate } from '@tollgate/core/testing';
 * import { coreMigrations, licenseMigrations } from '@tollgate/core';
 * export default async function setup() { await ensurePgliteTemplate(); }
 * const migrated = await ensurePgliteTemplate({ migrations: [coreMigrations, licenseMigrations] });
 * ```
 */
export async function ensurePgliteTemplate(options: PgliteTemplateOptions = {}): Promise<string> {
  const cacheDir = options.cacheDir ?? testCacheDir();
  const version = pgliteVersion();
  // The suffix names the initdb options below, so changing them never reuses an older template.
  const plainDir = join(cacheDir, `pglite-template-${version}-wal1m`);
  const plain = isTemplate(plainDir)
    ? plainDir
    : await buildAtomically(cacheDir, plainDir, async (buildDir) => {
        const { PGlite } = await import('@electric-sql/pglite');
        // 1 MB WAL segments instead of 16 MB: the template shrinks from ~39 to ~24 MB, and every test
        // database copies it.
        const db = await PGlite.create({ dataDir: buildDir, initDbStartParams: ['--wal-segsize=1'] });
        await db.query('SELECT 1');
        await db.close();
      }, { pglite: version });
  const migrations = options.migrations ?? [];
  if (migrations.length === 0) return plain;
  const fingerprint = migrationFingerprint(migrations);
  const migratedDir = `${plain}-migrated-${fingerprint}`;
  if (isTemplate(migratedDir)) return migratedDir;
  return buildAtomically(cacheDir, migratedDir, async (buildDir) => {
    cpSync(plain, buildDir, { recursive: true });
    // The same client the servers and openTestDatabase use, so the template holds what they would write.
    const { createPgliteClient } = await import('../storage/pglite/index');
    const sql = await createPgliteClient({ dataDir: buildDir });
    try {
      for (const set of migrations) await runMigrations(sql, set);
    } finally {
      await sql.close();
    }
  }, { pglite: version, migrations: fingerprint });
}
