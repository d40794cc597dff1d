// `npm run bench`: bundles every bench/**/*.bench.ts from the workspace sources (scripts/dev-build.mjs)
// and runs them one after the other. A bench file's default export is an async function that prints
// its own results; benchmarks measure and compare, they never assert timings.
//   npm run bench                      all benchmarks
//   npm run bench -- license           only files whose path contains "license"
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { devBuild } from './dev-build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const filters = process.argv.slice(2);

function findBenchFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findBenchFiles(path);
    return entry.isFile() && entry.name.endsWith('.bench.ts') ? [relative(root, path)] : [];
  });
}

const files = findBenchFiles(join(root, 'bench'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();
if (files.length === 0) {
  process.stderr.write('No bench/**/*.bench.ts file matched.\n');
  process.exit(1);
}
for (const file of files) {
  const bundle = await devBuild(file, join('.tollgate/build/bench', file.replace(/\.ts$/, '.mjs')));
  process.stdout.write(`\n=== ${file} ===\n`);
  const module = await import(pathToFileURL(bundle).href);
  if (typeof module.default !== 'function') throw new Error(`${file} must export a default async function`);
  await module.default();
}
