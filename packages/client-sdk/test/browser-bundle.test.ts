import { build } from 'esbuild';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packages } from '../../../scripts/workspace.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

describe('the client SDK in browsers', () => {
  it('bundles for the browser platform with no Node built-in anywhere in its import graph', async () => {
    const sources = new Map(
      packages.flatMap((pkg) => Object.entries(pkg.entries).map(([subpath, source]) => [subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`, join(root, pkg.dir, source)])),
    );
    const nodeImports: string[] = [];
    const result = await build({
      entryPoints: [join(root, 'packages/client-sdk/src/index.ts')],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'esm',
      logLevel: 'silent',
      metafile: true,
      loader: { '.sql': 'text' },
      plugins: [
        {
          name: 'workspace-and-node-guard',
          setup(b) {
            b.onResolve({ filter: /^@tollgate\// }, (args) => ({ path: sources.get(args.path) as string }));
            b.onResolve({ filter: /^(node:|fs$|path$|crypto$|zlib$|buffer$|stream$)/ }, (args) => {
              nodeImports.push(`${args.path} from ${args.importer}`);
              return { path: args.path, external: true };
            });
          },
        },
      ],
    });
    expect(result.errors).toEqual([]);
    expect(nodeImports).toEqual([]);
    expect(Object.keys(result.metafile.inputs).some((input) => input.includes('packages/core/src/license/verify-artifact.ts'))).toBe(true);
  }, 60_000);
});
