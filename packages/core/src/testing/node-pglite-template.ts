import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

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

/**
 * Returns the directory of a freshly initialised PGlite data directory to copy test databases from,
 * creating it on first use (initdb takes seconds; copying takes a fraction of one). Safe when several
 * processes call it at once: each builds in its own temporary directory and renames it into place
 * atomically; the first rename wins and the others discard their copy.
 *
 * @param options - `cacheDir` to override {@link testCacheDir}
 * @returns absolute path of the template directory
 *
 * @example
 * ```ts
 * import { ensurePgliteTemplate } from '@tollgate/core/testing';
 * export default async function setup() { await ensurePgliteTemplate(); }
 * ```
 */
export async function ensurePgliteTemplate(options: { cacheDir?: string } = {}): Promise<string> {
  const cacheDir = options.cacheDir ?? testCacheDir();
  const version = pgliteVersion();
  // The suffix names the initdb options below, so changing them never reuses an older template.
  const templateDir = join(cacheDir, `pglite-template-${version}-wal1m`);
  if (isTemplate(templateDir)) return templateDir;

  mkdirSync(cacheDir, { recursive: true });
  const buildDir = mkdtempSync(join(cacheDir, '.building-'));
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    // 1 MB WAL segments instead of 16 MB: the template shrinks from ~39 to ~24 MB, and every test
    // database copies it.
    const db = await PGlite.create({ dataDir: buildDir, initDbStartParams: ['--wal-segsize=1'] });
    await db.query('SELECT 1');
    await db.close();
    writeFileSync(join(buildDir, markerFile), JSON.stringify({ pglite: version }));
    try {
      renameSync(buildDir, templateDir);
    } catch (error) {
      // Another process renamed its template first: use that one.
      if (!isTemplate(templateDir)) throw error;
    }
  } finally {
    rmSync(buildDir, { recursive: true, force: true });
  }
  return templateDir;
}
