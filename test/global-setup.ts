import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePgliteTemplate } from '../packages/core/src/testing/node-pglite-template';

const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * vitest globalSetup: prepares shared fixtures once per test run. It may run once per vitest project,
 * possibly at the same time: `ensurePgliteTemplate` returns at once when the template exists and
 * builds it atomically (temporary directory + rename) when it does not.
 *
 * The template (an initdb'd PGlite data directory) lives in `node_modules/.cache/tollgate/` and lets
 * `openTestDatabase()` start a database by copying it instead of running initdb in every test file.
 * Its location reaches the test workers through the environment.
 */
export default async function setup(): Promise<void> {
  const cacheDir = join(repositoryRoot, 'node_modules', '.cache', 'tollgate');
  process.env['TOLLGATE_TEST_CACHE_DIR'] ??= cacheDir;
  process.env['TOLLGATE_PGLITE_TEMPLATE_DIR'] = await ensurePgliteTemplate({ cacheDir: process.env['TOLLGATE_TEST_CACHE_DIR'] });
}
