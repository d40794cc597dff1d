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
 * Builds the keyset from the database: the certificates of every certified epoch, **active or
 * revoked**, that verifies against `pinnedRoots`, ordered by `notBefore` then epoch id, and the
 * revocation head.
 *
 * - Only certificates that verify against the pins are listed (the others come back in `skipped`):
 *   a certificate from a root that is no longer pinned, or from a dev root in a database now served
 *   with real pins, would otherwise make clients that pin differently skip it or refuse the keyset.
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
 * import { buildKeyset } from '@tollgate/core';
 * const { bytes, revocationEpoch, skipped } = await buildKeyset(sql, { pinnedRoots });
 * ```
 */
export async function buildKeyset(sql: SqlClient, options: BuildKeysetOptions): Promise<PublishedKeyset> {
  assertPinnedRoots(options.pinnedRoots);
  const { rows } = await sql.query<{ epoch_id: Uint8Array; certificate: Uint8Array }>(
    `SELECT epoch_id, certificate FROM license_epochs WHERE status IN ('active', 'revoked') ORDER BY not_before DESC, epoch_id DESC`,
  );
  const listed: { epochIdHex: string; certificate: Uint8Array }[] = [];
  const skipped: SkippedCertificate[] = [];
  for (const row of rows) {
    const epochIdHex = hexEncode(row.epoch_id);
    try {
      verifyEpochCertificate(row.certificate, { pinnedRoots: options.pinnedRoots, ...(options.verify === undefined ? {} : { verify: options.verify }) });
    } catch (error) {
      if (!isArtifactError(error)) throw error;
      skipped.push({ epochIdHex, reason: error.reason });
      continue;
    }
    if (listed.length < maxKeysetCertificates) listed.push({ epochIdHex, certificate: row.certificate });
  }
  listed.reverse();
  const revocationEpoch = await readRevocationHead(sql);
  const bytes = encodeKeyset({ protoVersion: 1, certificates: listed.map((entry) => entry.certificate), revocationEpoch });
  return { bytes, revocationEpoch, epochIds: listed.map((entry) => entry.epochIdHex), skipped };
}
