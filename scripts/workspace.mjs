// The single source of truth for what each package builds and exports.
// tsup.config.ts builds these entries, vitest.config.ts aliases them to source, and
// test/workspace.test.ts checks that every package.json `exports`/`bin` map matches them.

/** @typedef {{ dir: string, name: string, entries: Record<string, string>, bins?: Record<string, string>, platform: 'node' | 'neutral' }} WorkspacePackage */

/** @type {WorkspacePackage[]} */
export const packages = [
  {
    dir: 'packages/core',
    name: '@tollgate/core',
    platform: 'neutral',
    entries: {
      '.': 'src/index.ts',
      './testing': 'src/testing/index.ts',
      './node': 'src/node/index.ts',
      './pglite': 'src/storage/pglite/index.ts',
      './pg': 'src/storage/pg/index.ts',
      './gateway': 'src/gateway/index.ts',
      './license': 'src/license/index.ts',
      './x402': 'src/x402/index.ts',
      './chain': 'src/chain/index.ts',
      './storage': 'src/storage/index.ts',
      './http': 'src/http/index.ts',
      './cbor': 'src/cbor/index.ts',
      './crypto': 'src/crypto/index.ts',
      './config': 'src/config/index.ts',
    },
  },
  {
    dir: 'packages/gateway-server',
    name: '@tollgate/gateway-server',
    platform: 'node',
    entries: { '.': 'src/index.ts', './devchain': 'src/devchain/index.ts' },
    bins: { 'tollgate-gateway': 'src/cli.ts' },
  },
  {
    dir: 'packages/license-server',
    name: '@tollgate/license-server',
    platform: 'node',
    entries: { '.': 'src/index.ts' },
    bins: { 'tollgate-license': 'src/cli.ts' },
  },
  {
    dir: 'packages/client-sdk',
    name: '@tollgate/client-sdk',
    platform: 'neutral',
    entries: { '.': 'src/index.ts', './node': 'src/node/index.ts' },
  },
  {
    dir: 'packages/admin-client',
    name: '@tollgate/admin-client',
    platform: 'neutral',
    entries: { '.': 'src/index.ts' },
    bins: { 'tollgate-admin': 'src/cli.ts' },
  },
];

/**
 * Output base name (without extension) of an entry: `.` → `index`, `./testing` → `testing/index`.
 * @param {string} subpath
 */
export function outputName(subpath) {
  return subpath === '.' ? 'index' : `${subpath.slice(2)}/index`;
}
