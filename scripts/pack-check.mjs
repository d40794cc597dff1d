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
//   6. Each embedding example (`examples/embed-*.ts`, types stripped) runs against the installed tarballs.
// Exits non-zero on any failure. `--keep` leaves the temp dir for inspection.
// Decisions (why a seeded lockfile, why --omit=optional): docs/decisions.md, "pack-check".
// The steps live in scripts/pack-check/: process.mjs (run), pack.mjs (1), install.mjs (2), smoke.mjs (3–5).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { installTarballs, writeProject } from './pack-check/install.mjs';
import { missingFiles, packAll } from './pack-check/pack.mjs';
import { repositoryRoot, run } from './pack-check/process.mjs';
import { embeddingExamples, startLicenseServer, writeEmbeddingExample, writeExample, writeLoadChecks } from './pack-check/smoke.mjs';
import { packages } from './workspace.mjs';

// Kept importable from here: test/pack-check.test.ts imports from this entry.
export { seededLockfile } from './pack-check/install.mjs';
export { entrySpecifiers, readmeExample } from './pack-check/smoke.mjs';

/**
 * What the embedding examples need beyond the installed tarballs: libraries an app brings itself (the
 * official x402 client, a web framework), and anvil's platform binary, an optional dependency of
 * `@foundry-rs/anvil` that a normal install brings but this one leaves out (`--omit=optional`).
 */
const exampleOnlyDependencies = ['@x402/fetch', 'hono', '@hono/node-server', ...readdirSync(join(repositoryRoot, 'node_modules/@foundry-rs')).filter((name) => name.startsWith('anvil-')).map((name) => `@foundry-rs/${name}`)];

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
    writeProject(project, packed);
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
    // The embedding examples use libraries an embedding app brings itself (the official x402 client that
    // pays, a web framework); the workspace's copies stand in for them, linked like vitest above.
    for (const dependency of exampleOnlyDependencies) {
      const target = join(project, 'node_modules', dependency);
      if (existsSync(target) || !existsSync(join(repositoryRoot, 'node_modules', dependency))) continue;
      mkdirSync(dirname(target), { recursive: true });
      symlinkSync(join(repositoryRoot, 'node_modules', dependency), target, 'dir');
    }
    for (const file of embeddingExamples) {
      await check(`examples/${file} from the tarballs`, async () =>
        run(process.execPath, [await writeEmbeddingExample(project, file)], { cwd: project, timeoutMs: 240_000 }).then((out) => out.trim().split('\n').at(-1)));
    }
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
