// Bundles a TypeScript entry of this workspace into one ESM file under .tollgate/build, resolving
// @tollgate/* imports to their sources (scripts/workspace.mjs) and keeping npm dependencies external.
// `npm start` uses it so the servers always run the current sources without a full declaration build.
import { build } from 'esbuild';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packages } from './workspace.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Maps every public specifier (`@tollgate/core/node`, …) to its source file. */
const sourceBySpecifier = new Map(
  packages.flatMap((pkg) =>
    Object.entries(pkg.entries).map(([subpath, source]) => [
      subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`,
      join(root, pkg.dir, source),
    ]),
  ),
);

/**
 * @param {string} entry - path of the entry, relative to the repository root
 * @param {string} outFile - output path, relative to the repository root
 * @returns {Promise<string>} absolute path of the bundle
 */
export async function devBuild(entry, outFile) {
  const outfile = join(root, outFile);
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [join(root, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
    loader: { '.sql': 'text' },
    plugins: [
      {
        name: 'tollgate-workspace-sources',
        setup(b) {
          b.onResolve({ filter: /^@tollgate\// }, (args) => {
            const path = sourceBySpecifier.get(args.path);
            return path ? { path } : { errors: [{ text: `unknown workspace import ${args.path}` }] };
          });
          // Everything else that is a bare specifier is an npm dependency: load it at run time.
          b.onResolve({ filter: /^[^./]/ }, (args) => (args.kind === 'entry-point' ? undefined : { path: args.path, external: true }));
        },
      },
    ],
  });
  return outfile;
}
