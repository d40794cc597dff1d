import { hexEncode } from '../../crypto';
import type { SqlClient } from '../../storage/sql-client';
import { isArtifactError, type ArtifactErrorReason } from '../artifact-error';
import { verifyEpochCertificate } from '../epoch-certificate';
import { assertPinnedRoots, encodeKeyset } from '../keyset';
import { maxKeysetCertificates } from '../protocol';
import type { SignatureVerifier } from '../verify-artifact';
import { readRevocationHead } from './revocation-store';

/** A stored certificate left out of the keyset, and why. */
export interface SkippedCertificate {
  readonly epochIdHex: string;
  /** Why it does not verify against the pins (`unpinned_root` after a root rotation, for example). */
  readonly reason: ArtifactErrorReason;
}

/** A keyset as the server publishes it. */
export interface PublishedKeyset {
  /** The `GET /v1/keys` body. */
  readonly bytes: Uint8Array;
  readonly revocationEpoch: number;
  /** The epochs listed, in order (active and revoked). */
  readonly epochIds: readonly string[];
  /** Stored certificates that do not verify against the configured pins: never listed. */
  readonly skipped: readonly SkippedCertificate[];
}

/** Options of {@link buildKeyset}. */
export interface BuildKeysetOptions {
  /** The roots clients pin (`LICENSE_ROOT_PUBLIC_KEYS`, or the dev root). */
  pinnedRoots: readonly Uint8Array[];
  /** Certificate signature check; `verifyEd25519` by default (`verifyEd25519Node` on servers). */
  verify?: SignatureVerifier;
}

/**
 * Builds the keyset from the database: for every certified epoch, **active or revoked**, one
 * certificate that verifies against `pinnedRoots`, ordered by `notBefore` then epoch id, and the
 * revocation head.
 *
 * - An epoch may hold several certificates: its primary one and **carry-over** certificates issued by
 *   later roots at a root rotation (`license_epoch_certificates`, see `addCarryOverCertificate`). The
 *   keyset lists the most recently added one that verifies against the pins (a client refuses a keyset
 *   listing an epoch twice). After a rotation every epoch is therefore listed under the new root, which
 *   clients of the old generation (pinning old and next) and of the new one (pinning new and next) both
 *   pin, and removing the old root from `LICENSE_ROOT_PUBLIC_KEYS` no longer drops its epochs.
 * - Only certificates that verify against the pins are listed (epochs with none come back in
 *   `skipped`): a certificate from a root that is no longer pinned, or from a dev root in a database now
 *   served with real pins, would otherwise make clients that pin differently skip it or refuse the keyset.
 * - Revoked epochs stay listed: the revocation batches they signed before they were revoked must stay
 *   verifiable for clients replaying the feed from `since=0`. Clients learn of the revocation itself
 *   from the feed (the batch that names the epoch, see `publishRevocationBatch`) and refuse everything
 *   the epoch signs afterwards (`revokedEpochIds`). The server never signs with them
 *   (`loadEpochSigningKeys` opens active epochs only).
 * - Expired epochs stay listed for the same reason; a certificate is small and epochs last months, so
 *   the list grows by a few per year. Past the 1,000-certificate limit the oldest are left out.
 *
 * @param sql - The database.
 * @param options - The pins and the signature verifier.
 * @returns The encoded keyset, what it lists, and what was skipped.
 * @throws TypeError when the pins are empty or malformed.
 *
 * @example
 * ```ts
 * import { buildKeyset } from '@tollgate/core/license';
 * const { bytes, revocationEpoch, skipped } = await buildKeyset(sql, { pinnedRoots });
 * ```
 */
export async function buildKeyset(sql: SqlClient, options: BuildKeysetOptions): Promise<PublishedKeyset> {
  assertPinnedRoots(options.pinnedRoots);
  // Per epoch (newest notBefore first), its certificates newest first: carry-overs, then the primary.
  const { rows } = await sql.query<{ epoch_id: Uint8Array; certificate: Uint8Array }>(
    `SELECT e.epoch_id, c.certificate
       FROM license_epochs e
       CROSS JOIN LATERAL (
         SELECT e.certificate AS certificate, COALESCE(e.activated_at, e.created_at) AS added_at
         UNION ALL
         SELECT x.certificate, x.created_at FROM license_epoch_certificates x WHERE x.epoch_id = e.epoch_id
       ) c
      WHERE e.status IN ('active', 'revoked')
      ORDER BY e.not_before DESC, e.epoch_id DESC, c.added_at DESC`,
  );
  const listed: { epochIdHex: string; certificate: Uint8Array }[] = [];
  const skipped: SkippedCertificate[] = [];
  const verify = (certificate: Uint8Array): ArtifactErrorReason | undefined => {
    try {
      verifyEpochCertificate(certificate, { pinnedRoots: options.pinnedRoots, ...(options.verify === undefined ? {} : { verify: options.verify }) });
      return undefined;
    } catch (error) {
      if (!isArtifactError(error)) throw error;
      return error.reason;
    }
  };
  let index = 0;
  while (index < rows.length) {
    const epochId = (rows[index] as { epoch_id: Uint8Array }).epoch_id;
    const epochIdHex = hexEncode(epochId);
    let chosen: Uint8Array | undefined;
    let firstFailure: ArtifactErrorReason | undefined;
    for (; index < rows.length && hexEncode((rows[index] as { epoch_id: Uint8Array }).epoch_id) === epochIdHex; index += 1) {
      if (chosen !== undefined) continue;
      const certificate = (rows[index] as { certificate: Uint8Array }).certificate;
      const failure = verify(certificate);
      if (failure === undefined) chosen = certificate;
      else firstFailure ??= failure;
    }
    if (chosen === undefined) skipped.push({ epochIdHex, reason: firstFailure ?? 'unpinned_root' });
    else if (listed.length < maxKeysetCertificates) listed.push({ epochIdHex, certificate: chosen });
  }
  listed.reverse();
  const revocationEpoch = await readRevocationHead(sql);
  const bytes = encodeKeyset({ protoVersion: 1, certificates: listed.map((entry) => entry.certificate), revocationEpoch });
  return { bytes, revocationEpoch, epochIds: listed.map((entry) => entry.epochIdHex), skipped };
}
