// Step 2 of pack-check: the empty project, its package-lock.json seeded from the workspace's, and the
// offline `npm ci` of the five tarballs (why: docs/decisions.md, "pack-check").
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packages } from '../workspace.mjs';
import { readManifest } from './pack.mjs';
import { repositoryRoot, run } from './process.mjs';

/**
 * The workspace's lockfile entry that Node's lookup finds for `name` from the package at `from` (a
 * lockfile path): the nearest `node_modules/<name>` walking up.
 * @param {Record<string, any>} lock @param {string} from @param {string} name
 */
function lookup(lock, from, name) {
  for (let base = from; ; ) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (lock[candidate]) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut >= 0 ? base.slice(0, cut) : '';
  }
}

/**
 * The empty project's package-lock.json: the five tarballs, plus every package they need at run time
 * copied from the workspace's lockfile with the same versions and layout (a package nested under
 * `packages/core/node_modules` lands under `node_modules/@tollgate/core/node_modules`). So `npm ci` installs
 * exactly what the workspace tested, from the cache `npm ci` filled. Optional dependencies and optional
 * peers are left out (see the decision "pack-check").
 * @param {any[]} packed `npm pack --json` @param {Record<string, string>} dependencies the root's
 * @param {{ packages: Record<string, any> }} workspaceLock the workspace's package-lock.json
 */
export function seededLockfile(packed, dependencies, workspaceLock) {
  const lock = workspaceLock.packages;
  /** @type {Record<string, any>} */
  const out = { '': { name: 'tollgate-pack-check', dependencies } };
  const toProject = (path) => {
    const owner = packages.find((pkg) => path === pkg.dir || path.startsWith(`${pkg.dir}/`));
    return owner ? `node_modules/${owner.name}${path.slice(owner.dir.length)}` : path;
  };
  /** @type {Map<string, any>} what each lockfile path needs: the tarballs' own manifests, then the lockfile's entries */
  const manifests = new Map();
  for (const pkg of packages) {
    const tarball = packed.find((entry) => entry.name === pkg.name);
    const { dependencies: needed, optionalDependencies, peerDependencies, peerDependenciesMeta, bin, engines, license } = readManifest(pkg);
    out[`node_modules/${pkg.name}`] = {
      version: tarball.version, resolved: dependencies[pkg.name], integrity: tarball.integrity,
      license, dependencies: needed, optionalDependencies, peerDependencies, peerDependenciesMeta, bin, engines,
    };
    manifests.set(pkg.dir, out[`node_modules/${pkg.name}`]);
  }
  // Walks the dependency graph; a package reached only through optional edges is marked optional, so
  // `npm ci --omit=optional` leaves it out (npm ci still wants it listed).
  const pending = [...manifests.keys()].map((from) => ({ from, optional: false }));
  while (pending.length > 0) {
    const { from, optional } = pending.pop();
    const { dependencies: needed = {}, optionalDependencies: optionals = {}, peerDependencies: peers = {}, peerDependenciesMeta: peerMeta = {} } = manifests.get(from) ?? lock[from];
    const edges = [
      ...Object.keys(needed).filter((name) => !(name in optionals)).map((name) => ({ name, optional })),
      ...Object.keys(peers).filter((name) => !peerMeta[name]?.optional).map((name) => ({ name, optional })),
      ...Object.keys(optionals).map((name) => ({ name, optional: true })),
    ];
    for (const edge of edges.filter(({ name }) => !name.startsWith('@tollgate/'))) {
      const found = lookup(lock, from, edge.name);
      if (found === undefined) {
        if (edge.optional) {
          // An optional dependency for another platform that the lockfile never resolved: unlisted here too.
          const dependent = out[toProject(from)];
          dependent.optionalDependencies = Object.fromEntries(Object.entries(dependent.optionalDependencies).filter(([name]) => name !== edge.name));
          continue;
        }
        throw new Error(`${edge.name}, needed by ${from}, is not in package-lock.json`);
      }
      const target = toProject(found);
      if (out[target] && (edge.optional || !out[target].optional)) continue;
      const { dev: _dev, optional: _optional, devOptional: _devOptional, peer: _peer, ...entry } = lock[found];
      out[target] = edge.optional ? { ...entry, optional: true } : entry;
      pending.push({ from: found, optional: edge.optional });
    }
  }
  return { name: 'tollgate-pack-check', lockfileVersion: 3, requires: true, packages: out };
}

/**
 * Writes the empty project's package.json (the tarballs as `file:` dependencies) and its seeded lockfile.
 * @param {string} project the project dir, a sibling of the tarballs dir @param {any[]} packed `npm pack --json`
 */
export function writeProject(project, packed) {
  const dependencies = Object.fromEntries(packed.map((entry) => [entry.name, `file:../tarballs/${entry.filename}`]));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'tollgate-pack-check', private: true, type: 'module', dependencies }, null, 2));
  const workspaceLock = JSON.parse(readFileSync(join(repositoryRoot, 'package-lock.json'), 'utf8'));
  writeFileSync(join(project, 'package-lock.json'), JSON.stringify(seededLockfile(packed, dependencies, workspaceLock), null, 2));
}

/**
 * Installs the tarballs into `project` with `npm ci`: from the npm cache alone when it can, else with the registry too.
 * @param {string} project
 * @returns {Promise<string>} how it installed
 */
export async function installTarballs(project) {
  const base = ['ci', '--no-audit', '--no-fund', '--omit=optional', '--ignore-scripts'];
  try {
    await run('npm', [...base, '--offline'], { cwd: project, timeoutMs: 300_000 });
    return 'offline, from the npm cache';
  } catch (offlineError) {
    if (!/ENOTCACHED/.test(String(offlineError))) throw offlineError;
    await run('npm', [...base, '--prefer-offline'], { cwd: project, timeoutMs: 300_000 });
    return 'the cache lacked some packages: --prefer-offline';
  }
}
