// `npm run openapi`: writes docs/openapi/gateway.json, the gateway's OpenAPI 3.1 document, from the
// route descriptors and valibot schemas in packages/core/src/gateway/openapi (bundled from the sources
// with scripts/dev-build.mjs, as `npm start` runs them). It is what a tollgate-gateway with the default
// configuration and order mode on (GATEWAY_ORDER_MODE=on) serves at GET /openapi.json: a superset of the
// default's, whose order and refund operations are labelled as order mode's; a gateway-server test fails
// when the file is stale.
//   npm run openapi              rewrite the file
//   npm run openapi -- --check   exit 1 when the file differs from the sources
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { devBuild } from './dev-build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'docs/openapi/gateway.json');

const bundle = await devBuild('packages/core/src/gateway/openapi/gateway-operations.ts', '.tollgate/build/openapi.mjs');
const { gatewayOpenApiDocument, serializeOpenApiDocument } = await import(pathToFileURL(bundle).href);
const text = serializeOpenApiDocument(gatewayOpenApiDocument());

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // a missing file differs
  }
  if (current !== text) {
    process.stderr.write('docs/openapi/gateway.json is out of date: run npm run openapi and review the diff.\n');
    process.exit(1);
  }
  process.stdout.write('docs/openapi/gateway.json is up to date.\n');
} else {
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target} (${text.length} bytes)\n`);
}
