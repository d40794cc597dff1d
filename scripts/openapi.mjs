// `npm run openapi`: writes docs/openapi/gateway.json, the gateway's OpenAPI 3.1 document, from the
// route descriptors and valibot schemas in packages/core/src/gateway/openapi (over the generic generator
// in packages/core/src/openapi; bundled from the sources with scripts/dev-build.mjs, as `npm start` runs
// them). It is what a tollgate-gateway with the default
// configuration and order mode on (GATEWAY_ORDER_MODE=on) serves at GET /openapi.json: a superset of the
// default's, whose order and refund operations are labelled as order mode's; a gateway-server test fails
// when the file is stale.
// It also writes docs/openapi/license-admin.json, the license server's Admin API document, from every
// Admin operation (adminOperationCatalog) and the valibot schemas of their `docs`: what a license server
// serves at GET /v1/admin/openapi.json (a license-server test fails when the file is stale).
//   npm run openapi              rewrite the file
//   npm run openapi -- --check   exit 1 when the file differs from the sources
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { devBuild } from './dev-build.mjs';
import { writeOrCheck } from './generated-file.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'docs/openapi/gateway.json');

const bundle = await devBuild('packages/core/src/gateway/openapi/index.ts', '.tollgate/build/openapi.mjs');
const { gatewayOpenApiDocument, serializeOpenApiDocument } = await import(pathToFileURL(bundle).href);
const text = serializeOpenApiDocument(gatewayOpenApiDocument());

writeOrCheck(target, text, { name: 'docs/openapi/gateway.json', regenerate: 'npm run openapi' });

const adminBundle = await devBuild('packages/core/src/license/admin/openapi/index.ts', '.tollgate/build/admin-openapi.mjs');
const admin = await import(pathToFileURL(adminBundle).href);
const adminText = admin.adminOpenApiText(admin.adminOperationCatalog());
writeOrCheck(join(root, 'docs/openapi/license-admin.json'), adminText, { name: 'docs/openapi/license-admin.json', regenerate: 'npm run openapi' });
