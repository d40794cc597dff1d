import { defineConfig, type Plugin } from 'vitest/config';
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

const project = (name: string, extra: Record<string, unknown> = {}) => ({
  extends: true as const,
  test: {
    name,
    root: resolve('packages', name),
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    ...extra,
  },
});

export default defineConfig({
  plugins: [sqlAsText()],
  resolve: { alias: alias.map(({ find, replacement }) => ({ find, replacement })) },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: [resolve('test/global-setup.ts')],
    projects: [
      { extends: true, test: { name: 'workspace', root: resolve('.'), include: ['test/**/*.test.ts'] } },
      project('core'),
      project('gateway-server'),
      project('license-server'),
      project('client-sdk'),
      project('admin-client'),
    ],
  },
});
