import { base64Encode } from '../../../crypto/base64';
import { hexDecode, hexEncode } from '../../../crypto/hex';
import { randomBytes, type RandomSource } from '../../../crypto/random';
import type { Signer } from '../../../crypto/signer';
import { AdminError } from '../../../errors/admin';
import type { OfflineKey } from '../../payloads/offline-key';
import { signArtifact } from '../../sign-artifact';
import { readRevocationHead } from '../../storage/revocation-store';
import { adminOperation, type AdminOperation } from '../admin-operation';
import { parseAdminInput } from '../admin-input';
import { resolveEntitlements } from '../../model/catalog/resolve-entitlements';
import { adminArtifactSigner, type AdminRevocationDeps } from './admin-revocation';
import { requireLicense } from './license-access';
import { readLicensePolicy } from '../../model/licenses/license-policy';
import { effectiveLicenseStatus } from '../../model/licenses/license-record';
import { offlineKeyRequestSchema } from '../../model/licenses/license-schemas';

/** The artifact kind of offline keys (docs/protocol.md §4: content type and domain follow from it). */
export const offlineKeyKind = 'offline-key';

/**
 * Signs an offline key as a product-bound COSE_Sign1 exactly as `signArtifact` signs every kind
 * (docs/protocol.md §4): protected header `{alg: EdDSA, content type application/vnd.tollgate.offline-key+cbor,
 * kid, product}`, external AAD `"tollgate/license/v1/offline-key" ‖ 0x00 ‖ product id`, payload the
 * canonical {@link offlineKeySpec} record (validated first).
 *
 * @param key - The payload.
 * @param options - An epoch signer and the product.
 * @returns The envelope bytes.
 * @throws ArtifactError `invalid_payload` when the payload breaks the layout.
 * @example
 * ```ts
 * import { signOfflineKey } from '@tollgate/core/license';
 * const envelope = await signOfflineKey(payload, { signer, productId });
 * ```
 */
export function signOfflineKey(key: OfflineKey, options: { signer: Signer; productId: string }): Promise<Uint8Array> {
  return signArtifact(offlineKeyKind, key, options);
}

/**
 * `POST /v1/admin/licenses/:licenseId/offline-key` (scope `licenses:rw`, a journaled mutation: a replay
 * returns the same bundle). Body `{ release_id, bound_fingerprint_hex?, max_seats? }`:
 *
 * - `release_id`: 32 hex digits naming the release the key unlocks. Releases are registered by a later
 *   work package; until then any well-formed id is accepted and signed into the key (a client accepts
 *   the key only for that release).
 * - `bound_fingerprint_hex`: 64 hex digits, the one device fingerprint the key works on.
 * - `max_seats`: 1 to the license's seats (its seats by default).
 *
 * The license is read under a shared row lock for the whole transaction, so a mint never overlaps a
 * revocation of its license: it waits for one in flight and then refuses, or a revoke arriving meanwhile
 * is answered 409 `revocation_in_progress` until the mint commits.
 *
 * 409 `license_not_active` unless the license shows `active` (not suspended, expired or revoked); 422
 * `olk_not_allowed` when its policy has `offline_allowed: false`. The answer `{ offline_key }` holds the
 * signed `offline-key` envelope (base64), the certificate of the epoch that signed it (base64; it
 * verifies against the pinned root, so an air-gapped device needs nothing else) and the key's fields.
 *
 * @param deps - The signing epochs.
 * @returns The operation.
 * @example
 * ```ts
 * import { offlineKeyOperation } from '@tollgate/core/license';
 * const operation = offlineKeyOperation({ sql, signingEpochs: () => trust.signingEpochs() });
 * ```
 */
export function offlineKeyOperation(deps: Pick<AdminRevocationDeps, 'signingEpochs'> & { readonly random?: RandomSource }): AdminOperation {
  return adminOperation({
    method: 'POST',
    path: '/licenses/:licenseId/offline-key',
    docs: { summary: 'Mints a signed offline license key (OLK) for an active license whose policy allows it.', body: offlineKeyRequestSchema, status: 201, errors: ['license_not_active', 'olk_not_allowed', 'service_unavailable'] },
    scopes: ['licenses:rw'],
    kind: 'mutation',
    run: async (call) => {
      // The target first: another vendor's license is 404 whatever the body says. Read under a shared
      // lock: a revoke in flight (which holds the row) is waited for and its outcome checked below, and a
      // revoke arriving later finds the row busy until this mint commits. Without it, a mint that read the
      // license as active before a revoke committed could commit after it, with the older revocation epoch.
      const license = await requireLicense(call, call.params.licenseId, { forShare: true });
      const input = parseAdminInput(offlineKeyRequestSchema, call.body);
      const status = effectiveLicenseStatus(license, call.now);
      if (status !== 'active') throw new AdminError('license_not_active', `License ${license.licenseId} is ${status}: offline keys are minted for active licenses only.`);
      const policy = await readLicensePolicy(call.sql, call.actor.vendorId, license.policyId);
      if (policy === undefined) throw new Error(`License ${license.licenseId} names policy ${license.policyId}, which is gone.`);
      if (!policy.terms.offline_allowed) throw new AdminError('olk_not_allowed', "The license's policy does not allow offline keys (offline_allowed is false).");
      const seats = license.seatsOverride ?? license.policySeats;
      const maxSeats = input.max_seats ?? seats;
      if (maxSeats > seats) throw new AdminError('invalid_request', `max_seats must be at most the license's ${seats} seats.`);

      const entitlements = await resolveEntitlements(call.sql, call.actor.vendorId, {
        product_id: license.productId,
        tier: license.tier ?? license.policyTier,
        overrides: license.entitlementOverrides,
      });
      const scope = license.versionScopeOverride ?? policy.terms.version_scope ?? {};
      const issuedAt = Math.floor(call.now.getTime() / 1000);
      const bundleId = (deps.random ?? randomBytes)(16);
      const key: OfflineKey = {
        protoVersion: 1,
        bundleId,
        licenseId: hexDecode(license.licenseId),
        releaseId: hexDecode(input.release_id),
        issuedAt,
        ...(license.expiresAt === null ? {} : { expiresAt: Math.floor(license.expiresAt.getTime() / 1000) }),
        maxSeats,
        ...(input.bound_fingerprint_hex === undefined ? {} : { boundFingerprint: hexDecode(input.bound_fingerprint_hex) }),
        ...(entitlements.tier === null ? {} : { tier: entitlements.tier }),
        features: entitlements.features,
        entitlementDigest: hexDecode(entitlements.digest),
        revocationEpoch: await readRevocationHead(call.sql),
        ...(scope.min === undefined ? {} : { versionMin: scope.min }),
        ...(scope.max_exclusive === undefined ? {} : { versionMaxExclusive: scope.max_exclusive }),
      };
      const signer = adminArtifactSigner(deps.signingEpochs(), call.now, license.productId);
      const envelope = await signOfflineKey(key, { signer, productId: license.productId });
      const { rows } = await call.sql.query<{ certificate: Uint8Array | null }>('SELECT certificate FROM license_epochs WHERE epoch_id = $1', [hexDecode(signer.kid)]);
      const certificate = rows[0]?.certificate;
      if (certificate === undefined || certificate === null) throw new AdminError('service_unavailable', 'The signing epoch has no stored certificate; try again after the keyset refresh.');

      const bundleIdHex = hexEncode(bundleId);
      await call.audit({
        action: 'license.offline_key',
        targetType: 'license',
        targetId: license.licenseId,
        summary: { bundle_id: bundleIdHex, release_id: input.release_id, bound: input.bound_fingerprint_hex !== undefined, max_seats: maxSeats, epoch_id: signer.kid },
      });
      return {
        status: 201,
        body: {
          offline_key: {
            bundle_id: bundleIdHex,
            license_id: license.licenseId,
            product_id: license.productId,
            release_id: input.release_id,
            bound_fingerprint_hex: input.bound_fingerprint_hex ?? null,
            max_seats: maxSeats,
            issued_at: call.now.toISOString(),
            expires_at: license.expiresAt?.toISOString() ?? null,
            tier: entitlements.tier,
            features: entitlements.features,
            entitlement_digest: entitlements.digest,
            kind: offlineKeyKind,
            epoch_id: signer.kid,
            envelope_base64: base64Encode(envelope),
            certificate_base64: base64Encode(certificate),
          },
        },
      };
    },
  });
}
