// Steps 3–5 of pack-check, run in the installed project: entry loading (ESM and CJS), types (tsc),
// a license server from the installed tarball, and the README examples.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { transform } from 'esbuild';
import { packages } from '../workspace.mjs';
import { repositoryRoot } from './process.mjs';

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
 * @param {import('../workspace.mjs').WorkspacePackage} pkg
 */
export function entrySpecifiers(pkg) {
  return Object.keys(pkg.entries).map((subpath) => (subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`));
}

/**
 * Writes the load and types checks into the project: ESM and CJS loads of every entry, compared
 * (`load.mjs`); `tsc` resolution of every entry from an .mts and a .cts file (`tsconfig.json`).
 * @param {string} project
 */
export function writeLoadChecks(project) {
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

/**
 * Starts a license server from the installed package; resolves once it wrote its URL and roots.
 * @param {string} project @param {string} dataDir its TOLLGATE_DATA_DIR
 * @returns {Promise<{ url: string, roots: string[], stop: () => Promise<void> }>}
 */
export async function startLicenseServer(project, dataDir) {
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

/**
 * Writes a package README's example into the project; throws when the README has none.
 * @param {string} project @param {import('../workspace.mjs').WorkspacePackage} pkg
 * @returns {string} the example file
 */
export function writeExample(project, pkg) {
  const example = readmeExample(readFileSync(join(repositoryRoot, pkg.dir, 'README.md'), 'utf8'));
  if (example === undefined) throw new Error(`${pkg.dir}/README.md has no "${runMarker}" example`);
  const file = join(project, `example-${pkg.dir.replace(/^.*\//, '')}.mjs`);
  writeFileSync(file, example + '\n');
  return file;
}

/**
 * The embedding examples (`examples/embed-*.ts`), which CI runs against the installed tarballs: each
 * is compiled from TypeScript to an .mjs file in the project (types stripped, imports untouched), so
 * `@tollgate/*` resolve to the tarballs exactly as in a user's app.
 */
export const embeddingExamples = readdirSync(join(repositoryRoot, 'examples')).filter((file) => /^embed-.*\.ts$/.test(file));

/** Writes `examples/<file>` into `project` as plain JavaScript; returns its path. */
export async function writeEmbeddingExample(project, file) {
  const { code } = await transform(readFileSync(join(repositoryRoot, 'examples', file), 'utf8'), { loader: 'ts', format: 'esm', target: 'node20' });
  const compiled = join(project, file.replace(/\.ts$/, '.mjs'));
  writeFileSync(compiled, code);
  return compiled;
}
