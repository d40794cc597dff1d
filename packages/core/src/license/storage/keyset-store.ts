import { hexEncode } from '../../crypto';
import type { SqlClient } from '../../storage/sql-client';
import { encodeKeyset } from '../keyset';
import { maxKeysetCertificates } from '../protocol';
import { readRevocationHead } from './revocation-store';

/** A keyset as the server publishes it. */
export interface PublishedKeyset {
  /** The `GET /v1/keys` body. */
  readonly bytes: Uint8Array;
  readonly revocationEpoch: number;
  /** The epochs listed, in order. */
  readonly epochIds: readonly string[];
}

/**
 * Builds the keyset from the database: the certificates of every active (not revoked) epoch, ordered by
 * `notBefore` then epoch id, and the revocation head. Expired epochs stay listed: clients need them to
 * verify the immutable revocation batches those epochs signed (`verifyArtifact` checks a batch at its
 * `issuedAt`); a certificate is small and epochs last months, so the list grows by a few per year.
 *
 * Past the 1,000-certificate limit the oldest are left out.
 *
 * @param sql - The database.
 * @returns The encoded keyset.
 *
 * @example
 * ```ts
 * import { buildKeyset } from '@tollgate/core';
 * const { bytes, revocationEpoch } = await buildKeyset(sql);
 * ```
 */
export async function buildKeyset(sql: SqlClient): Promise<PublishedKeyset> {
  const { rows } = await sql.query<{ epoch_id: Uint8Array; certificate: Uint8Array }>(
    `SELECT epoch_id, certificate FROM (
       SELECT epoch_id, certificate, not_before FROM license_epochs WHERE status = 'active' ORDER BY not_before DESC, epoch_id DESC LIMIT $1
     ) newest ORDER BY not_before, epoch_id`,
    [maxKeysetCertificates],
  );
  const revocationEpoch = await readRevocationHead(sql);
  const bytes = encodeKeyset({ protoVersion: 1, certificates: rows.map((row) => row.certificate), revocationEpoch });
  return { bytes, revocationEpoch, epochIds: rows.map((row) => hexEncode(row.epoch_id)) };
}
