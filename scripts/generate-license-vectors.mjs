// Regenerates packages/core/test/vectors/license-v1.json from its deterministic builder
// (packages/core/test/vectors/build-license-vectors.ts): fixed seeds, ids, nonces and times, and
// deterministic Ed25519, so the output is byte-identical on every run.
//   node scripts/generate-license-vectors.mjs          rewrite the file
//   node scripts/generate-license-vectors.mjs --check  exit 1 when the file differs from the builder
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { devBuild } from './dev-build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'packages/core/test/vectors/license-v1.json');

const bundle = await devBuild('packages/core/test/vectors/build-license-vectors.ts', '.tollgate/build/license-vectors.mjs');
const { renderLicenseVectors } = await import(pathToFileURL(bundle).href);
const text = await renderLicenseVectors();

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // a missing file differs
  }
  if (current !== text) {
    process.stderr.write('license-v1.json is out of date: run node scripts/generate-license-vectors.mjs and review the diff.\n');
    process.exit(1);
  }
  process.stdout.write('license-v1.json is up to date.\n');
} else {
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target} (${text.length} bytes)\n`);
}
