// Step 1 of pack-check: `npm pack` of every package, and the files each tarball must hold.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packages } from '../workspace.mjs';
import { repositoryRoot, run } from './process.mjs';

/**
 * Packs every package into `dir`; returns npm's description of each tarball (`npm pack --json`).
 * @param {string} dir
 * @returns {Promise<any[]>}
 */
export async function packAll(dir) {
  const workspaces = packages.flatMap((pkg) => ['--workspace', pkg.dir]);
  const output = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir, ...workspaces], { cwd: repositoryRoot });
  return JSON.parse(output.slice(output.indexOf('[')));
}

/**
 * The workspace's package.json of a package.
 * @param {import('../workspace.mjs').WorkspacePackage} pkg
 */
export const readManifest = (pkg) => JSON.parse(readFileSync(join(repositoryRoot, pkg.dir, 'package.json'), 'utf8'));

/**
 * Files the manifest promises (exports targets, bins, README) that the tarball lacks.
 * @param {import('../workspace.mjs').WorkspacePackage} pkg @param {any} packed its `npm pack --json` entry
 * @returns {string[]}
 */
export function missingFiles(pkg, packed) {
  const inTarball = new Set(packed.files.map((file) => file.path));
  const manifest = readManifest(pkg);
  const promised = new Set(['README.md', 'package.json']);
  const collect = (target) => {
    if (typeof target === 'string') promised.add(target.replace(/^\.\//, ''));
    else if (target && typeof target === 'object') Object.values(target).forEach(collect);
  };
  collect(manifest.exports);
  collect(manifest.bin);
  for (const target of Object.values(manifest.bin ?? {})) {
    // The bin shim runs dist/bin/<name>.js in an installed package.
    promised.add(`dist/bin/${target.replace(/^.*\//, '').replace(/\.mjs$/, '.js')}`);
  }
  return [...promised].filter((file) => !inTarball.has(file));
}
