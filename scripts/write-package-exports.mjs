// Writes the `exports`, `main`, `module`, `types`, `bin` and `files` fields of every package.json from
// scripts/workspace.mjs, so the published maps always equal the build's entry map. Run it after
// changing an entry; test/workspace.test.ts fails when a package.json drifts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packages, outputName } from './workspace.mjs';

/** @param {import('./workspace.mjs').WorkspacePackage} pkg */
export function exportsFor(pkg) {
  /** @type {Record<string, unknown>} */
  const map = {};
  for (const subpath of Object.keys(pkg.entries)) {
    const base = `./dist/${outputName(subpath)}`;
    map[subpath] = {
      import: { types: `${base}.d.ts`, default: `${base}.js` },
      require: { types: `${base}.d.cts`, default: `${base}.cjs` },
    };
  }
  map['./package.json'] = './package.json';
  return map;
}

/** @param {import('./workspace.mjs').WorkspacePackage} pkg */
export function binsFor(pkg) {
  if (!pkg.bins) return undefined;
  return Object.fromEntries(Object.keys(pkg.bins).map((bin) => [bin, `./bin/${bin}.mjs`]));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const pkg of packages) {
    const file = join(pkg.dir, 'package.json');
    const json = JSON.parse(readFileSync(file, 'utf8'));
    const { name, version, description, license, type, ...rest } = json;
    delete rest.exports; delete rest.main; delete rest.module; delete rest.types; delete rest.bin; delete rest.files; delete rest.sideEffects;
    const out = {
      name, version, description, license: license ?? 'MIT', type: type ?? 'module',
      sideEffects: false,
      main: './dist/index.cjs', module: './dist/index.js', types: './dist/index.d.ts',
      exports: exportsFor(pkg),
      ...(pkg.bins ? { bin: binsFor(pkg) } : {}),
      files: ['dist', ...(pkg.bins ? ['bin'] : []), 'README.md'],
      ...rest,
    };
    writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  }
}
