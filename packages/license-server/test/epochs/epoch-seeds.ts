/**
 * The `:epochId` target of the Admin matrices (admin-seeds.ts): an epoch scoped to the vendor's product,
 * created as `tollgate-license epoch create` does, signed by the dev root and loaded through
 * `POST /v1/admin/epochs`. Product-scoped, so it belongs to that vendor even on a server hosting several.
 */
import { hexEncode } from '@tollgate/core';
import { createRootSigner, signEpochCertificate, type BootstrappedVendor } from '@tollgate/core/license';
import { createNodeEd25519Signer } from '@tollgate/core/node';
import { loadLicenseConfig } from '@tollgate/license-server';
import { createEpochRequest, devKeyPaths, resolveMasterKey } from '../../src/ceremony/ceremony';
import { readRootKeyFile } from '../../src/ceremony/key-files';
import { freshKey, type AdminHarness } from '../admin/admin-harness';

/**
 * Creates and loads an epoch scoped to `vendor`'s product on a dev-mode bench.
 *
 * @param bench - The Admin bench (dev mode: its dev root signs).
 * @param vendor - Whose product.
 * @returns The epoch id (16 hex digits).
 */
export async function seedEpochTarget(bench: AdminHarness, vendor: BootstrappedVendor): Promise<string> {
  const config = loadLicenseConfig(bench.sandbox.env);
  const root = readRootKeyFile(devKeyPaths(config).root);
  const { epoch, request } = await createEpochRequest(bench.sql, { masterKey: resolveMasterKey(config).key, days: 30, productScope: vendor.productId });
  const certificate = await signEpochCertificate(request, createRootSigner(root.privateKey, createNodeEd25519Signer));
  const answer = await bench.call('POST', '/epochs', {
    token: vendor.token,
    key: freshKey(),
    body: { certificate_hex: hexEncode(certificate), root_verifying_key_hex: hexEncode(root.publicKey) },
  });
  if (answer.status !== 200) throw new Error(`seeding an epoch answered ${answer.status}: ${answer.text}`);
  return epoch.epochIdHex;
}
