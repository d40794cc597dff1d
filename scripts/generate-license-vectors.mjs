// Regenerates packages/core/test/vectors/license-v1.json from its deterministic builder
// (packages/core/test/vectors/build-license-vectors.ts): fixed seeds, ids, nonces and times, and
// deterministic Ed25519, so the output is byte-identical on every run.
//   node scripts/generate-license-vectors.mjs          rewrite the file
//   node scripts/generate-license-vectors.mjs --check  exit 1 when the file differs from the builder
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { devBuild } from './dev-build.mjs';
import { writeOrCheck } from './generated-file.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'packages/core/test/vectors/license-v1.json');

const bundle = await devBuild('packages/core/test/vectors/build-license-vectors.ts', '.tollgate/build/license-vectors.mjs');
const { renderLicenseVectors } = await import(pathToFileURL(bundle).href);
const text = await renderLicenseVectors();

writeOrCheck(target, text, { name: 'license-v1.json', regenerate: 'node scripts/generate-license-vectors.mjs' });
