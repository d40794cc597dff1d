import type { Signer } from '../../crypto';
import { hexDecode } from '../../crypto/hex';
import { LicenseClientError } from '../../errors/license-client';
import type { SqlClient } from '../../storage/sql-client';
import type { ReleaseGate, ReleaseJudgement } from '../releases/release-gate';
import type { ClientInfo } from '../requests/client-info';
import type { MachineCredential } from '../payloads/machine-credential';
import type { ActivationRequest } from '../requests/activation-request';
import { readRevocationHead } from '../storage/revocation-store';
import { grantAssetKeys } from '../asset-keys/asset-key-grant';
import { signClientArtifact, type ClientProtocolContext } from './client-protocol-deps';
import type { ActivationLicense } from './activation-store';
import { licenseEntitlements, refreshSchedule, type LicenseStanding } from './license-standing';

/** Offline credentials are refreshed at the license's end, or after this long when it never ends. */
export const offlineCredentialRefreshSeconds = 365 * 86_400;

/** What the release registry said about a device's build, as activation and validation use it. */
export interface BuildVerdict {
  readonly judgement: ReleaseJudgement | undefined;
  /** The version to check against the version scope: the registered release's, else the client's claim. */
  readonly appVersion: string;
  /** The registered release id (hex), when known. */
  readonly releaseId: string | null;
  readonly securityFloor: number;
}

/**
 * Asks the release gate about the build a device reports. Unknown builds of a product that registers
 * releases are 1007 (the message says how to register one); a release compromised with action `revoke`
 * is 1009 at activation (validation turns it into a kill order, so it asks with `refuseRevoked: false`).
 * Without a gate every build passes with security floor 0.
 *
 * @param gate - The release gate, if wired.
 * @param productId - The product.
 * @param clientInfo - What the device reports.
 * @param options - Whether a `revoke` compromise is refused here.
 * @returns The verdict.
 * @throws LicenseClientError 1007 or 1009.
 * @example
 * ```ts
 * import { judgeBuild } from '@tollgate/core/license';
 * const build = await judgeBuild(deps.releaseGate, productId, request.clientInfo, { refuseRevoked: true });
 * ```
 */
export async function judgeBuild(gate: ReleaseGate | undefined, productId: string, clientInfo: ClientInfo, options: { refuseRevoked: boolean }): Promise<BuildVerdict> {
  if (gate === undefined) return { judgement: undefined, appVersion: clientInfo.appVersion, releaseId: null, securityFloor: 0 };
  const judgement = await gate.judge({
    productId,
    ...(clientInfo.buildFingerprint === undefined ? {} : { buildFingerprint: clientInfo.buildFingerprint }),
    ...(clientInfo.releaseId === undefined ? {} : { releaseId: clientInfo.releaseId }),
  });
  if (judgement.kind === 'unknown') {
    if (judgement.gated) {
      throw new LicenseClientError(
        1007,
        'This build is not registered for the product. The vendor registers it with POST /v1/admin/releases (app_version, build_fingerprint, channel); the app then reports its build_fingerprint or release_id in client_info.',
      );
    }
    return { judgement, appVersion: clientInfo.appVersion, releaseId: null, securityFloor: await gate.securityFloor(productId) };
  }
  if (options.refuseRevoked && judgement.state === 'compromised' && judgement.compromiseAction === 'revoke') {
    throw new LicenseClientError(1009, 'This release was marked compromised and may not be activated; install a current release.');
  }
  return { judgement, appVersion: judgement.appVersion, releaseId: judgement.releaseId, securityFloor: judgement.securityFloor };
}

/**
 * Builds and signs the machine credential of a seat: entitlements resolved now (with the standing's
 * tier, so a lapsed `fallback` license gets its fallback tier), the revocation epoch read in the same
 * transaction, timing from the policy, and the asset keys of the entitled features for the build's
 * release wrapped to the request's KEM key (key 15, absent when there are none). An offline credential is mode 0 and is refreshed at the
 * license's end (or after a year); an online one is mode 1 when the policy requires heartbeats.
 *
 * @param context - The service context (signing epochs, clock).
 * @param tx - The activation's transaction.
 * @param input - The license, its standing, the machine, the request and the build verdict.
 * @returns The signed envelope and the epoch signer that signed it.
 * @example
 * ```ts
 * import { signMachineCredential } from '@tollgate/core/license';
 * const { envelope } = await signMachineCredential(context, tx, { license, standing, machineId, request, build, offline: false, now });
 * ```
 */
export async function signMachineCredential(
  context: Pick<ClientProtocolContext, 'signingEpochs' | 'assetKeys' | 'randomSource'>,
  tx: SqlClient,
  input: {
    license: ActivationLicense;
    standing: Extract<LicenseStanding, { kind: 'usable' }>;
    machineId: string;
    request: ActivationRequest;
    build: BuildVerdict;
    offline: boolean;
    now: number;
  },
): Promise<{ envelope: Uint8Array; signer: Signer }> {
  const { license, standing, request, now } = input;
  const schedule = refreshSchedule(license.policy, standing, now);
  const offlineRefresh = standing.refreshBy ?? standing.expiresAt ?? now + offlineCredentialRefreshSeconds;
  const entitlements = await licenseEntitlements(tx, license.vendorId, { product_id: license.productId, tier: standing.tier, overrides: license.entitlementOverrides });
  const revocationEpoch = await readRevocationHead(tx);
  const licenseId = hexDecode(license.licenseId);
  const machineId = hexDecode(input.machineId);
  const assetKeys = await grantAssetKeys(context.assetKeys, tx, {
    releaseId: input.build.releaseId,
    features: entitlements.features,
    deviceKemKey: () => request.deviceKemKey,
    context: { kind: 'machine-credential', productId: license.productId, licenseId, machineId, nonceEcho: request.nonce, issuedAt: now, revocationEpoch },
    random: context.randomSource,
  });
  const credential: MachineCredential = {
    protoVersion: 1,
    licenseId,
    machineId,
    fingerprint: request.fingerprint,
    devicePublicKey: request.devicePublicKey,
    nonceEcho: request.nonce,
    issuedAt: now,
    refreshAfter: input.offline ? Math.max(now, offlineRefresh) : schedule.refreshAfter,
    graceSeconds: schedule.graceSeconds,
    ...(standing.expiresAt === undefined ? {} : { expiresAt: standing.expiresAt }),
    entitlements,
    revocationEpoch,
    securityFloor: input.build.securityFloor,
    mode: !input.offline && license.policy.heartbeat_window_seconds !== null ? 1 : 0,
    ...(assetKeys === undefined ? {} : { assetKeys }),
  };
  return signClientArtifact(context.signingEpochs(), 'machine-credential', credential, { productId: license.productId, now });
}
