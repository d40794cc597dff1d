import { defineConfig, type Plugin } from 'vitest/config';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { packages, outputName } from './scripts/workspace.mjs';

// Tests run against workspace sources, not dist: every public subpath is aliased to its source entry.
const alias = packages.flatMap((pkg) =>
  Object.entries(pkg.entries).map(([subpath, source]) => ({
    find: new RegExp(`^${(subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`).replace(/[/.]/g, '\\$&')}$`),
    replacement: resolve(pkg.dir, source),
    name: outputName(subpath),
  })),
);

/** Loads `.sql` migration files as text, as the esbuild `text` loader does for the build. */
function sqlAsText(): Plugin {
  return {
    name: 'tollgate-sql-as-text',
    transform(code, id) {
      if (id.endsWith('.sql')) return { code: `export default ${JSON.stringify(code)};`, map: null };
      return undefined;
    },
  };
}

// Two tiers (docs/testing.md). Unit: the tests next to the code (`packages/*/src/**/*.test.ts`), pure —
// no database, no chain — so they need no global setup. Integration: each package's `test/` folder,
// with the PGlite template prepared once per run. Most projects share one module graph per worker
// (`isolate: false`): importing core's ~500 source modules again for every file cost more than many
// files' tests, so every file in them closes what it opens and restores what it changes. The files that
// mock modules (client-sdk/test) or start whole stacks from the repository root (workspace) stay isolated.
const globalSetup = [resolve('test/global-setup.ts')];

const unit = {
  extends: true as const,
  test: {
    name: 'unit',
    root: resolve('.'),
    include: ['packages/*/src/**/*.test.ts'],
    setupFiles: [resolve('test/unit-tier-setup.ts')],
    isolate: false,
  },
};

/** One module graph per worker, reused by the files it runs: each file must close what it opens. */
const shared = { isolate: false };

const integration = (name: string, root: string, extra: Record<string, unknown> = {}) => ({
  extends: true as const,
  test: { name, root, include: ['test/**/*.test.ts'], globalSetup, ...extra },
});

/**
 * Test files run at once: by default one per core plus one, since most integration files spend their
 * time waiting on a database, a chain or a child process rather than computing.
 * `TOLLGATE_TEST_WORKERS` overrides it.
 */
function testWorkers(configured: string | undefined): number {
  if (configured === undefined || configured === '') return availableParallelism() + 1;
  const count = Number(configured);
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`TOLLGATE_TEST_WORKERS is a whole number of test files at once (1 or more), not "${configured}".`);
  return count;
}
const workers = testWorkers(process.env['TOLLGATE_TEST_WORKERS']);

export default defineConfig({
  plugins: [sqlAsText()],
  resolve: { alias: alias.map(({ find, replacement }) => ({ find, replacement })) },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: workers,
    projects: [
      unit,
      integration('workspace', resolve('.')),
      integration('core', resolve('packages', 'core'), shared),
      integration('gateway-server', resolve('packages', 'gateway-server'), shared),
      integration('license-server', resolve('packages', 'license-server'), shared),
      integration('client-sdk', resolve('packages', 'client-sdk')),
      integration('admin-client', resolve('packages', 'admin-client'), shared),
    ],
  },
});
