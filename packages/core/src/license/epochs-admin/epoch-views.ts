import { hexEncode } from '../../crypto/hex';
import type { SqlClient } from '../../storage/sql-client';
import { isArtifactError } from '../artifact-error';
import { encodeEpochCertificateRequest, verifyEpochCertificate } from '../epoch-certificate';
import type { SigningEpoch } from '../signing-epochs';
import type { SignatureVerifier } from '../verify-artifact';
import type { EpochCertificateEntry } from './carry-over-certificates';
import type { AdministeredEpoch, EpochAdministration } from './epoch-admin-store';

/** What the epoch operations need from the server. */
export interface EpochAdminDeps extends EpochAdministration {
  /** The database itself (not a transaction): post-commit notices wait on it. */
  readonly sql: SqlClient;
  /** The roots certificates are checked against (`LICENSE_ROOT_PUBLIC_KEYS`, or the dev root). */
  readonly pinnedRoots: readonly Uint8Array[];
  /** The epochs this instance signs with (`trust.signingEpochs()`): revocation batches take a global one. */
  signingEpochs(): readonly SigningEpoch[];
  /** `LICENSE_EPOCH_REVOKE_APPROVAL_SECONDS`: the window of the second confirmation. */
  readonly approvalWindowSeconds: number;
  /**
   * Called once a change of the trust chain has committed, with the change notice migration 012 and 014
   * send (`epoch:<hex>:active`, `epoch:<hex>:carried-over`, `epoch:<hex>:revoked`): the server hands it to
   * `trust.applyChangeNotice`, which retires a revoked epoch's signer at once and republishes the keyset.
   * Never called for a rolled-back change or a journaled replay; must not throw.
   */
  afterTrustChange?(notice: string): void;
  /** Certificate signature check (`verifyEd25519Node` on servers). */
  readonly verify?: SignatureVerifier;
}

/** Whether one of the certificates verifies against the pins: the keyset then lists the epoch. */
export function verifiesUnderPins(entries: readonly EpochCertificateEntry[] | undefined, deps: Pick<EpochAdminDeps, 'pinnedRoots' | 'verify'>): boolean {
  return (entries ?? []).some(({ certificate }) => {
    try {
      verifyEpochCertificate(certificate, { pinnedRoots: deps.pinnedRoots, ...(deps.verify === undefined ? {} : { verify: deps.verify }) });
      return true;
    } catch (error) {
      if (isArtifactError(error)) return false;
      throw error;
    }
  });
}

const iso = (date: Date | undefined): string | null => (date === undefined ? null : date.toISOString());

/**
 * The JSON view of an epoch. `certificate_request_hex` is the request a root signs: the primary root
 * while the epoch is pending, and the next root at a rotation (a carry-over certificate, uploaded with
 * `POST /epochs` like the primary one).
 *
 * @param epoch - The epoch.
 * @param context - Its certificates, the pins and the time.
 * @returns The view.
 *
 * @example
 * ```ts
 * import { epochView } from '@tollgate/core/license';
 * const view = epochView(epoch, { certificates: byEpoch.get(epoch.epochIdHex), deps, now });
 * ```
 */
export function epochView(
  epoch: AdministeredEpoch,
  context: { certificates: readonly EpochCertificateEntry[] | undefined; deps: Pick<EpochAdminDeps, 'pinnedRoots' | 'verify'>; now: number },
): Record<string, unknown> {
  const request = encodeEpochCertificateRequest({
    protoVersion: 1,
    epochId: epoch.epochId,
    publicKey: epoch.publicKey,
    notBefore: epoch.notBefore,
    notAfter: epoch.notAfter,
    ...(epoch.productScope === undefined ? {} : { productScope: epoch.productScope }),
  });
  return {
    epoch_id: epoch.epochIdHex,
    status: epoch.status,
    product_scope: epoch.productScope ?? null,
    public_key_hex: hexEncode(epoch.publicKey),
    not_before: epoch.notBefore,
    not_after: epoch.notAfter,
    valid_now: epoch.notBefore <= context.now && context.now < epoch.notAfter,
    expired: context.now >= epoch.notAfter,
    listed_in_keyset: epoch.status !== 'pending' && verifiesUnderPins(context.certificates, context.deps),
    certified_by: (context.certificates ?? []).map((entry) => ({ root_key_id: entry.rootKeyIdHex ?? null, carried_over: entry.carriedOver })),
    key_wiped: epoch.keyWipedAt !== undefined,
    created_at: epoch.createdAt.toISOString(),
    activated_at: iso(epoch.activatedAt),
    revoked_at: iso(epoch.revokedAt),
    certificate_request_hex: hexEncode(request),
  };
}
