// Regenerates the license known-answer vectors from their deterministic builders: fixed seeds, ids,
// nonces and times, and deterministic Ed25519, so the output is byte-identical on every run.
//   packages/core/test/vectors/license-v1.json             (packages/core/test/vectors/build-license-vectors.ts)
//   packages/core/test/vectors/license-asset-keys-v1.json  (packages/core/src/license/asset-keys/asset-key-vectors.ts)
//   node scripts/generate-license-vectors.mjs          rewrite the files
//   node scripts/generate-license-vectors.mjs --check  exit 1 when a file differs from its builder
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { devBuild } from './dev-build.mjs';
import { writeOrCheck } from './generated-file.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const regenerate = 'node scripts/generate-license-vectors.mjs';

const bundle = await devBuild('packages/core/test/vectors/build-license-vectors.ts', '.tollgate/build/license-vectors.mjs');
const { renderLicenseVectors } = await import(pathToFileURL(bundle).href);
writeOrCheck(join(root, 'packages/core/test/vectors/license-v1.json'), await renderLicenseVectors(), { name: 'license-v1.json', regenerate });

const assetBundle = await devBuild('packages/core/src/license/asset-keys/asset-key-vectors.ts', '.tollgate/build/license-asset-key-vectors.mjs');
const { renderAssetKeyVectors } = await import(pathToFileURL(assetBundle).href);
writeOrCheck(join(root, 'packages/core/test/vectors/license-asset-keys-v1.json'), renderAssetKeyVectors(), { name: 'license-asset-keys-v1.json', regenerate });
