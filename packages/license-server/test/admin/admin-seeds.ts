/**
 * One target of every kind the Admin API's paths name (`:productId`, `:policyId`, …), created as a vendor
 * would create them, for the matrices in admin-matrices.test.ts.
 */
import { hexEncode } from '@tollgate/core';
import { randomBytes, randomId } from '@tollgate/core/crypto';
import { createSqlMachineStore, type BootstrappedVendor } from '@tollgate/core/license';
import { freshKey, type AdminHarness } from './admin-harness';
import { seedEpochTarget } from '../epochs/epoch-seeds';

/** The id of one target per path parameter name. */
export interface SeededTargets {
  readonly productId: string;
  readonly featureId: string;
  readonly groupId: string;
  readonly tierId: string;
  readonly policyId: string;
  readonly licenseId: string;
  readonly machineId: string;
  readonly releaseId: string;
  /** An epoch scoped to the vendor's product (epoch-seeds.ts). */
  readonly epochId: string;
  /** The fingerprint of an integrity signer key of the vendor's product. */
  readonly fingerprint: string;
}

/**
 * Creates a feature, a group, a tier, a policy, a license, a machine and a release of `vendor` (the machine
 * through the store, as activation will: no Admin route creates machines). The machine reports the
 * release, so the release routes' dry runs have a device to count.
 *
 * @param bench - The bench.
 * @param vendor - Whose targets.
 * @returns Their ids.
 */
export async function seedVendorTargets(bench: AdminHarness, vendor: BootstrappedVendor): Promise<SeededTargets> {
  const created = async (path: string, body: unknown) => {
    const answer = await bench.call('POST', path, { token: vendor.token, key: freshKey(), body });
    if (answer.status !== 201 && answer.status !== 200) throw new Error(`seeding ${path} answered ${answer.status}: ${answer.text}`);
    return answer.body;
  };
  const productId = vendor.productId;
  await created('/catalog/features', { product_id: productId, id: 'seed-feature', name: 'Seed feature' });
  await created('/catalog/groups', { product_id: productId, id: 'seed-group', name: 'Seed group', features: ['seed-feature'] });
  await created('/catalog/tiers', { product_id: productId, id: 'seed-tier', name: 'Seed tier', groups: ['seed-group'] });
  const policy = await created('/policies', { product_id: productId, name: 'Seed policy', offline_allowed: true, tier: 'seed-tier' });
  const issued = await created('/licenses', { policy_id: policy.policy.id, count: 1 });
  const licenseId = issued.licenses[0].license_id as string;
  const machineId = randomId();
  const inserted = await createSqlMachineStore(bench.sql).insert({
    machineId,
    licenseId,
    vendorId: vendor.vendorId,
    fingerprintHash: randomId() + randomId(),
    devicePublicKey: new Uint8Array(32).fill(7),
    createdAt: new Date(),
  });
  if (inserted.kind !== 'inserted') throw new Error(`seeding a machine: ${inserted.kind}`);
  const registered = await created('/releases', { product_id: productId, app_version: '1.0.0', build_fingerprint: hexEncode(randomBytes(32)), channel: 'stable' });
  const releaseId = registered.release.release_id as string;
  // The client protocol writes this column at activation and validation; no Admin route does.
  await bench.sql.query('UPDATE license_machines SET release_id = $1 WHERE machine_id = $2', [releaseId, machineId]);
  const epochId = await seedEpochTarget(bench, vendor);
  // A signer key the server generates for the product (POST /integrity/keys answers its public half).
  const signer = await created('/integrity/keys', { product_id: productId, label: 'seed signer' });
  const fingerprint = signer.key.fingerprint as string;
  return { productId, featureId: 'seed-feature', groupId: 'seed-group', tierId: 'seed-tier', policyId: policy.policy.id, licenseId, machineId, releaseId, epochId, fingerprint };
}
