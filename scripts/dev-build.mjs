// Bundles a TypeScript entry of this workspace into one ESM file under .tollgate/build, resolving
// @tollgate/* imports to their sources (scripts/workspace.mjs) and keeping npm dependencies external.
// `npm start` uses it so the servers always run the current sources without a full declaration build.
import { build } from 'esbuild';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
 * Whether the nearest `node_modules/<package>` above `fromDir` is not the root's, so that Node, running
 * the source file where it is, would load another copy than the bundle under .tollgate/build would.
 *
 * @param {string} specifier - a bare import specifier
 * @param {string} fromDir - the importing file's directory
 * @returns {boolean}
 */
function hasNestedCopy(specifier, fromDir) {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  for (let dir = fromDir; dir.startsWith(root) && dir !== root; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', name, 'package.json'))) return true;
  }
  return false;
}

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
          // Everything else that is a bare specifier is an npm dependency: load it at run time. A package
          // installed in a workspace's own node_modules (another version than the root's, such as core's
          // @noble/curves 2 beside viem's 1.x at the root) would resolve to the root copy from the bundle's
          // location: import that copy by its file URL instead.
          b.onResolve({ filter: /^[^./]/ }, async (args) => {
            if (args.kind === 'entry-point' || args.pluginData?.nested) return undefined;
            if (!hasNestedCopy(args.path, args.resolveDir)) return { path: args.path, external: true };
            const resolved = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: { nested: true } });
            if (resolved.errors.length > 0) return { errors: resolved.errors };
            return { path: pathToFileURL(resolved.path).href, external: true };
          });
        },
      },
    ],
  });
  return outfile;
}
