import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { coreMigrations, gatewayMigrations, licenseMigrations } from '../packages/core/src/index';
import { ensurePgliteTemplate } from '../packages/core/src/testing/node-pglite-template';
import { dropScratchDatabases, testRunIdVariable } from '../packages/core/src/testing/node-scratch-databases';
import { testDatabaseUrlVariable } from '../packages/core/src/testing/node-test-engines';

const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * vitest globalSetup: prepares shared fixtures once per test run. It may run once per vitest project,
 * possibly at the same time: `ensurePgliteTemplate` returns at once when the template exists and
 * builds it atomically (temporary directory + rename) when it does not.
 *
 * The template (an initdb'd PGlite data directory) lives in `node_modules/.cache/tollgate/` and lets
 * `openTestDatabase()` start a database by copying it instead of running initdb in every test file;
 * beside it, the templates with the core, gateway and license migrations applied. It names the run
 * (`TOLLGATE_TEST_RUN_ID`), and its teardown drops the scratch databases the run created on the
 * PostgreSQL server (`createScratchDatabase` leaves them to it rather than wait for a checkpoint).
 * Its location reaches the test workers through the environment.
 */
export default async function setup(): Promise<() => Promise<void>> {
  // One id for the whole run (this setup runs once per project, in one process): the scratch databases
  // created on the PostgreSQL server carry it, and the teardown below drops them all at once.
  process.env[testRunIdVariable] ??= Array.from(crypto.getRandomValues(new Uint8Array(5)), (byte) => byte.toString(16).padStart(2, '0')).join('');
  const cacheDir = join(repositoryRoot, 'node_modules', '.cache', 'tollgate');
  process.env['TOLLGATE_TEST_CACHE_DIR'] ??= cacheDir;
  const cache = { cacheDir: process.env['TOLLGATE_TEST_CACHE_DIR'] };
  process.env['TOLLGATE_PGLITE_TEMPLATE_DIR'] = await ensurePgliteTemplate(cache);
  // The migrated templates the suites open (openTestDatabase, the server helpers), built here once rather
  // than by several workers at once on a fresh checkout. A list not built here is built on first use.
  for (const migrations of [[coreMigrations], [coreMigrations, gatewayMigrations], [coreMigrations, licenseMigrations]]) {
    await ensurePgliteTemplate({ ...cache, migrations });
  }
  return async () => {
    const serverUrl = process.env[testDatabaseUrlVariable];
    const runId = process.env[testRunIdVariable];
    if (serverUrl === undefined || serverUrl === '' || runId === undefined) return;
    await dropScratchDatabases(serverUrl, runId).catch((error: unknown) => {
      console.warn(`[tollgate] could not drop this run's scratch databases: ${error instanceof Error ? error.message : String(error)}`);
    });
  };
}
