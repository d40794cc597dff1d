import { constantTimeEqual, hexEncode } from '../../crypto';
import type { SqlClient } from '../../storage/sql-client';
import { systemClock } from '../../time/clock';
import { decodeSign1 } from '../cose-sign1';
import { verifyEpochCertificate, type VerifiedEpoch } from '../epoch-certificate';
import { licenseWireLengths } from '../protocol';
import type { ActivateEpochCertificateOptions } from '../storage/epoch-store';
import { TrustChainError } from '../trust-chain-error';

type StoredEpochRow = {
  public_key: Uint8Array;
  product_scope: string | null;
  not_before: string;
  not_after: string;
  status: 'pending' | 'active' | 'revoked';
  certificate: Uint8Array | null;
};
/** What {@link addCarryOverCertificate} did. */
export interface CarryOverOutcome {
  readonly epoch: VerifiedEpoch;
  /** The 8-byte key id (hex) of the root that issued the carry-over certificate. */
  readonly rootKeyIdHex: string;
  /** False when the same certificate was stored before (uploading it again is a no-op). */
  readonly added: boolean;
}

/**
 * Root rotation: stores a **carry-over certificate**, one issued by another pinned root for an epoch
 * that is already certified (active or revoked, expired or not): same epoch id, key, window and scope.
 * The keyset then lists the epoch under the most recently added certificate that verifies against the
 * pins (`buildKeyset`), so the epoch — and every revocation batch it signed — stays verifiable once the
 * old root leaves `LICENSE_ROOT_PUBLIC_KEYS`. Unlike activation, an expired certificate is accepted
 * (history is what it carries over) and a wiped or revoked key does not matter (nothing is signed with
 * it because of this). Run it inside the caller's transaction to have it commit with an audit event.
 *
 * @param sql - The database (or a transaction).
 * @param options - The certificate, the pins it must verify against, the clock of `created_at`.
 * @returns The epoch, the issuing root and whether a row was added.
 * @throws `ArtifactError` when the certificate does not verify; {@link TrustChainError} `unknown_epoch`
 *   (no such certified epoch), `certificate_mismatch` (another key, window or scope, or another
 *   certificate of the same root already stored), `invalid_signer` when the root is the one of the
 *   primary certificate (nothing to carry over).
 *
 * @example
 * ```ts
 * import { addCarryOverCertificate } from '@tollgate/core/license';
 * const { added } = await addCarryOverCertificate(sql, { certificate, pinnedRoots: [newRoot] });
 * ```
 */
export async function addCarryOverCertificate(sql: SqlClient, options: ActivateEpochCertificateOptions): Promise<CarryOverOutcome> {
  const clock = options.clock ?? systemClock;
  const epoch = verifyEpochCertificate(options.certificate, { pinnedRoots: options.pinnedRoots, ...(options.verify === undefined ? {} : { verify: options.verify }) });
  const rootKeyId = epoch.rootKeyDigest.subarray(0, licenseWireLengths.epochId);
  const rootKeyIdHex = hexEncode(rootKeyId);
  return sql.transaction(async (tx) => {
    const { rows } = await tx.query<StoredEpochRow>('SELECT public_key, product_scope, not_before, not_after, status, certificate FROM license_epochs WHERE epoch_id = $1 FOR UPDATE', [
      epoch.epochId,
    ]);
    const row = rows[0];
    if (row === undefined || row.status === 'pending' || row.certificate === null) {
      throw new TrustChainError('unknown_epoch', `No certified epoch ${epoch.epochIdHex} is stored here: activate it with its primary certificate first.`, { details: { epochId: epoch.epochIdHex } });
    }
    const matches =
      constantTimeEqual(row.public_key, epoch.publicKey) &&
      Number(row.not_before) === epoch.notBefore &&
      Number(row.not_after) === epoch.notAfter &&
      (row.product_scope ?? undefined) === epoch.productScope;
    if (!matches) {
      throw new TrustChainError('certificate_mismatch', `The certificate does not certify the key, window and scope of epoch ${epoch.epochIdHex}.`, { details: { epochId: epoch.epochIdHex } });
    }
    if (certificateRootKeyIdHex(row.certificate) === rootKeyIdHex) {
      throw new TrustChainError('invalid_signer', `Root ${rootKeyIdHex} issued the primary certificate of epoch ${epoch.epochIdHex}: there is nothing to carry over.`, {
        details: { epochId: epoch.epochIdHex, rootKeyId: rootKeyIdHex },
      });
    }
    const existing = await tx.query<{ certificate: Uint8Array }>('SELECT certificate FROM license_epoch_certificates WHERE epoch_id = $1 AND root_key_id = $2', [epoch.epochId, rootKeyId]);
    const previous = existing.rows[0];
    if (previous !== undefined) {
      if (constantTimeEqual(previous.certificate, options.certificate)) return { epoch, rootKeyIdHex, added: false };
      throw new TrustChainError('certificate_mismatch', `Root ${rootKeyIdHex} already carried epoch ${epoch.epochIdHex} over with another certificate.`, { details: { epochId: epoch.epochIdHex } });
    }
    await tx.query('INSERT INTO license_epoch_certificates (epoch_id, root_key_id, certificate, created_at) VALUES ($1, $2, $3, $4)', [
      epoch.epochId,
      rootKeyId,
      options.certificate,
      new Date(clock.now()),
    ]);
    return { epoch, rootKeyIdHex, added: true };
  });
}

/** One certificate of an epoch: the root that issued it and the envelope. */
export interface EpochCertificateEntry {
  /** The 8-byte key id (hex) of the issuing root, from the envelope's `kid` (`undefined` if unreadable). */
  readonly rootKeyIdHex: string | undefined;
  readonly certificate: Uint8Array;
  /** False for the primary certificate, true for carry-overs. */
  readonly carriedOver: boolean;
}

/**
 * Every certificate of every certified epoch: the primary one first, then the carry-overs in the order
 * they were added.
 *
 * @param sql - The database or a transaction.
 * @returns By epoch id hex.
 *
 * @example
 * ```ts
 * import { listEpochCertificates } from '@tollgate/core/license';
 * const roots = [...(await listEpochCertificates(sql)).values()].map((entries) => entries.map((entry) => entry.rootKeyIdHex));
 * ```
 */
export async function listEpochCertificates(sql: SqlClient): Promise<Map<string, EpochCertificateEntry[]>> {
  const { rows } = await sql.query<{ epoch_id: Uint8Array; certificate: Uint8Array; carried: number }>(
    `SELECT epoch_id, certificate, carried FROM (
       SELECT epoch_id, certificate, COALESCE(activated_at, created_at) AS added_at, 0 AS carried FROM license_epochs WHERE certificate IS NOT NULL
       UNION ALL
       SELECT epoch_id, certificate, created_at, 1 FROM license_epoch_certificates
     ) c ORDER BY epoch_id, carried, added_at`,
  );
  const byEpoch = new Map<string, EpochCertificateEntry[]>();
  for (const row of rows) {
    const epochIdHex = hexEncode(row.epoch_id);
    const entry: EpochCertificateEntry = { rootKeyIdHex: certificateRootKeyIdHex(row.certificate), certificate: row.certificate, carriedOver: Number(row.carried) === 1 };
    byEpoch.set(epochIdHex, [...(byEpoch.get(epochIdHex) ?? []), entry]);
  }
  return byEpoch;
}

/** The root key id a certificate names in its `kid` (hex), or `undefined` when it cannot say. */
function certificateRootKeyIdHex(certificate: Uint8Array): string | undefined {
  try {
    const kid = decodeSign1(certificate).header.kid;
    return kid === undefined ? undefined : hexEncode(kid);
  } catch {
    return undefined;
  }
}
