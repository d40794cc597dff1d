// Checks the published packages as a user gets them (run after `npm run build`):
//   1. `npm pack` each package of scripts/workspace.mjs; the tarball must hold README.md and every file
//      its `exports` / `bin` maps name.
//   2. An empty project in a temp dir installs the five tarballs together with `npm ci` (so the @tollgate
//      deps resolve to each other's tarballs, never to the registry), from a package-lock.json seeded
//      from the workspace's: third-party deps install at the versions the workspace tested, from the npm
//      cache `npm ci` filled (`--offline`); only when the cache lacks one is the registry asked.
//   3. Every entry loads with ESM `import` and CJS `require` (same export names), and its types resolve
//      for both (`tsc`, node16 resolution, from the installed package).
//   4. Every command (`bin`) answers its help; `tollgate-license bootstrap` mints a real Admin token.
//   5. Each package README's example (the block after `<!-- pack-check: run -->`) runs as written, the
//      admin-client and client-sdk ones against a license server started from the installed tarball.
// Exits non-zero on any failure. `--keep` leaves the temp dir for inspection.
// Decisions (why a seeded lockfile, why --omit=optional): docs/decisions.md, "pack-check".
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packages } from './workspace.mjs';

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const runMarker = '<!-- pack-check: run -->';

/**
 * The runnable example of a package README: the fenced block right after `<!-- pack-check: run -->`.
 * It must be plain JavaScript (type-free TypeScript) so it runs as an `.mjs` file unchanged.
 * @param {string} readme
 * @returns {string | undefined}
 */
export function readmeExample(readme) {
  const at = readme.indexOf(runMarker);
  if (at < 0) return undefined;
  const match = /^\s*```(?:ts|js|typescript|javascript)\n([\s\S]*?)\n```/.exec(readme.slice(at + runMarker.length));
  return match?.[1];
}

/**
 * The bare specifier of every entry of a package: `@tollgate/core`, `@tollgate/core/node`, …
 * @param {import('./workspace.mjs').WorkspacePackage} pkg
 */
export function entrySpecifiers(pkg) {
  return Object.keys(pkg.entries).map((subpath) => (subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`));
}

/**
 * Runs a command; resolves with its output, rejects (with the output) on a non-zero exit or the timeout.
 * @param {string} command @param {string[]} args
 * @param {{ cwd: string, env?: Record<string, string | undefined>, timeoutMs?: number }} options
 * @returns {Promise<string>}
 */
function run(command, args, { cwd, env = {}, timeoutMs = 120_000 }) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolvePromise(output);
      else reject(new Error(`${command} ${args.join(' ')} → ${signal ?? `exit ${code}`}\n${output}`));
    });
  });
}

const failures = [];
/** Runs one named check, records a failure instead of stopping, and prints its duration. */
async function check(name, body) {
  const started = Date.now();
  try {
    const detail = await body();
    console.log(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)${detail ? `: ${detail}` : ''}`);
  } catch (error) {
    failures.push(name);
    console.error(`FAIL ${name}\n${String(error instanceof Error ? error.message : error).trim().replace(/^/gm, '     ')}`);
  }
}

/** Packs every package into `dir`; returns npm's description of each tarball. */
async function packAll(dir) {
  const workspaces = packages.flatMap((pkg) => ['--workspace', pkg.dir]);
  const output = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir, ...workspaces], { cwd: repositoryRoot });
  return JSON.parse(output.slice(output.indexOf('[')));
}

/** Files the manifest promises (exports targets, bins, README) that the tarball lacks. */
/** @param {import('./workspace.mjs').WorkspacePackage} pkg */
const readManifest = (pkg) => JSON.parse(readFileSync(join(repositoryRoot, pkg.dir, 'package.json'), 'utf8'));

function missingFiles(pkg, packed) {
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

/** Installs the tarballs into `project` with `npm ci`: from the npm cache alone when it can, else with the registry too. */
async function installTarballs(project) {
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

/** ESM and CJS loads of every entry, compared; `tsc` resolution of every entry from an .mts and a .cts file. */
function writeLoadChecks(project) {
  const specifiers = packages.flatMap(entrySpecifiers);
  writeFileSync(join(project, 'load.mjs'), `import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const problems = [];
for (const specifier of ${JSON.stringify(specifiers)}) {
  try {
    const esm = Object.keys(await import(specifier)).filter((key) => key !== 'default' && key !== 'module.exports').sort();
    // vitest refuses require(): the CJS build of the conformance suites cannot load (ESM-only entry).
    if (specifier === '@tollgate/core/testing') continue;
    const cjs = Object.keys(require(specifier)).sort();
    if (esm.length === 0) problems.push(specifier + ': no exports');
    else if (esm.join() !== cjs.join()) problems.push(specifier + ': ESM and CJS export different names');
  } catch (error) { problems.push(specifier + ': ' + error.message); }
}
if (problems.length > 0) { console.error(problems.join('\\n')); process.exit(1); }
console.log(${specifiers.length} + ' entries');
`);
  const lines = specifiers.map((specifier, index) => [specifier, `entry${index}`]);
  writeFileSync(join(project, 'types.mts'), lines.map(([s, id]) => `import * as ${id} from '${s}';\nexport const keys${id.slice(5)}: string[] = Object.keys(${id});`).join('\n') + '\n');
  writeFileSync(join(project, 'types.cts'), lines.map(([s, id]) => `import ${id} = require('${s}');\nexport const keys${id.slice(5)}: string[] = Object.keys(${id});`).join('\n') + '\n');
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { module: 'node16', moduleResolution: 'node16', target: 'es2022', strict: true, noEmit: true, skipLibCheck: true, types: ['node'], typeRoots: [join(repositoryRoot, 'node_modules/@types')] },
    files: ['types.mts', 'types.cts'],
  }));
}

/** Starts a license server from the installed package; resolves once it wrote its URL and roots. */
async function startLicenseServer(project, dataDir) {
  const infoFile = join(project, 'license-server.json');
  writeFileSync(join(project, 'serve-license.mjs'), `import { writeFileSync } from 'node:fs';
import { loadLicenseConfig, startLicenseServer } from '@tollgate/license-server';
const server = await startLicenseServer(loadLicenseConfig(process.env), { print: () => {} });
const roots = server.context.pinnedRoots.map((root) => Buffer.from(root).toString('hex'));
writeFileSync(${JSON.stringify(infoFile)}, JSON.stringify({ url: server.url, roots }));
process.once('SIGTERM', () => server.close().then(() => process.exit(0)));
`);
  const child = spawn(process.execPath, ['serve-license.mjs'], {
    cwd: project,
    env: { ...process.env, LICENSE_PORT: '0', TOLLGATE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors += chunk));
  const deadline = Date.now() + 90_000;
  while (!existsSync(infoFile)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the license server did not start\n${errors}`);
    }
    await new Promise((wake) => setTimeout(wake, 200));
  }
  const stop = () => new Promise((done) => {
    if (child.exitCode !== null) return done(undefined);
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => { clearTimeout(killer); done(undefined); });
    child.kill('SIGTERM');
  });
  return { ...JSON.parse(readFileSync(infoFile, 'utf8')), stop };
}

/** Writes a package README's example into the project; throws when the README has none. */
function writeExample(project, pkg) {
  const example = readmeExample(readFileSync(join(repositoryRoot, pkg.dir, 'README.md'), 'utf8'));
  if (example === undefined) throw new Error(`${pkg.dir}/README.md has no "${runMarker}" example`);
  const file = join(project, `example-${pkg.dir.replace(/^.*\//, '')}.mjs`);
  writeFileSync(file, example + '\n');
  return file;
}

async function main() {
  const started = Date.now();
  const keep = process.argv.includes('--keep');
  for (const pkg of packages) {
    if (!existsSync(join(repositoryRoot, pkg.dir, 'dist'))) throw new Error(`${pkg.dir}/dist is missing: run \`npm run build\` first`);
  }
  const root = mkdtempSync(join(tmpdir(), 'tollgate-pack-check-'));
  const tarballs = join(root, 'tarballs');
  const project = join(root, 'project');
  mkdirSync(tarballs);
  mkdirSync(project);
  try {
    const packed = await packAll(tarballs);
    for (const pkg of packages) {
      await check(`pack ${pkg.name}`, () => {
        const entry = packed.find((candidate) => candidate.name === pkg.name);
        if (!entry) throw new Error('npm pack made no tarball');
        const missing = missingFiles(pkg, entry);
        if (missing.length > 0) throw new Error(`missing from the tarball: ${missing.join(', ')}`);
        return `${entry.files.length} files, ${(entry.size / 1024).toFixed(0)} KiB`;
      });
    }
    const dependencies = Object.fromEntries(packed.map((entry) => [entry.name, `file:../tarballs/${entry.filename}`]));
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'tollgate-pack-check', private: true, type: 'module', dependencies }, null, 2));
    const workspaceLock = JSON.parse(readFileSync(join(repositoryRoot, 'package-lock.json'), 'utf8'));
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify(seededLockfile(packed, dependencies, workspaceLock), null, 2));
    let installed = false;
    await check('npm ci of the five tarballs (seeded lockfile)', async () => {
      const how = await installTarballs(project);
      installed = true;
      return how;
    });
    if (!installed) return;
    // `@tollgate/core/testing` needs its optional peer vitest, which a user of that entry installs; the
    // workspace's copy stands in for it (linked, not installed, to keep the check fast and offline).
    symlinkSync(join(repositoryRoot, 'node_modules/vitest'), join(project, 'node_modules/vitest'), 'dir');
    writeLoadChecks(project);
    await check('every entry with import and require', () => run(process.execPath, ['load.mjs'], { cwd: project }).then((out) => out.trim()));
    await check('types of every entry for import and require (tsc, node16)', () =>
      run(process.execPath, [join(repositoryRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: project }));
    const bin = (name) => join(project, 'node_modules/.bin', name);
    await check('tollgate-gateway --help', () => run(bin('tollgate-gateway'), ['--help'], { cwd: project }).then(() => undefined));
    await check('tollgate-admin help', () => run(bin('tollgate-admin'), ['help'], { cwd: project }).then(() => undefined));

    const licenseData = join(root, 'license-data');
    let bootstrap;
    await check('tollgate-license bootstrap', async () => {
      const env = { TOLLGATE_DATA_DIR: licenseData, LOG_LEVEL: 'warn' };
      const output = await run(bin('tollgate-license'), ['bootstrap', '--vendor', 'Pack Check', '--product', 'Pack Check App', '--json'], { cwd: project, env });
      bootstrap = JSON.parse(output.slice(output.indexOf('{')));
      if (typeof bootstrap.token !== 'string' || typeof bootstrap.productId !== 'string') throw new Error(`unexpected answer: ${output}`);
    });
    const examples = Object.fromEntries(packages.map((pkg) => [pkg.name, pkg]));
    const runExample = (name, env) =>
      check(`README example of ${name}`, () => run(process.execPath, [writeExample(project, examples[name])], { cwd: project, env, timeoutMs: 90_000 }).then(() => undefined));
    if (bootstrap) {
      let server;
      await check('license server from the tarball', async () => {
        server = await startLicenseServer(project, licenseData);
        return server.url;
      });
      if (server) {
        const env = { LICENSE_SERVER_URL: server.url, LICENSE_PRODUCT_ID: bootstrap.productId, LICENSE_PINNED_ROOTS: server.roots.join(','), TOLLGATE_ADMIN_TOKEN: bootstrap.token };
        await runExample('@tollgate/admin-client', env);
        await runExample('@tollgate/client-sdk', env);
        await server.stop();
      }
    }
    await runExample('@tollgate/core', {});
    await runExample('@tollgate/license-server', { LICENSE_PORT: '0', TOLLGATE_DATA_DIR: join(root, 'license-example'), LOG_LEVEL: 'warn' });
    await runExample('@tollgate/gateway-server', { GATEWAY_PORT: '0', GATEWAY_DEV_CHAIN: '0', TOLLGATE_DATA_DIR: join(root, 'gateway-example'), LOG_LEVEL: 'warn' });
  } finally {
    if (keep) console.log(`kept ${root}`);
    else rmSync(root, { recursive: true, force: true });
    console.log(`pack-check: ${failures.length === 0 ? 'all passed' : `${failures.length} failed (${failures.join('; ')})`} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    () => process.exit(failures.length === 0 ? 0 : 1),
    (error) => {
      console.error(`pack-check: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
