import type { Signer } from '../../crypto';
import { hexDecode } from '../../crypto/hex';
import { LicenseClientError } from '../../errors/license-client';
import type { SqlClient } from '../../storage/sql-client';
import type { OfflineResponse } from '../payloads/offline-response';
import { signClientArtifact } from './client-protocol-deps';
import type { ActivationLicense } from './activation-store';

/** How long an offline answer may wait before it is imported: `valid_until` = server time + 7 days. */
export const offlineAnswerValiditySeconds = 7 * 86_400;

/**
 * The archived answer of an offline request with this nonce on this license, while it can still be
 * imported: a replay of the nonce gets these bytes back, whatever its Idempotency-Key.
 *
 * @param sql - The database or a transaction.
 * @param licenseId - The license the request's key names.
 * @param nonce - The request's nonce.
 * @param now - The time of the request.
 * @returns The archived bytes, if any.
 * @example
 * ```ts
 * import { readOfflineArchive } from '@tollgate/core/license';
 * const archived = await readOfflineArchive(sql, licenseId, request.nonce, new Date());
 * ```
 */
export async function readOfflineArchive(sql: SqlClient, licenseId: string, nonce: Uint8Array, now: Date): Promise<Uint8Array | undefined> {
  const { rows } = await sql.query<{ body: Uint8Array }>('SELECT body FROM license_offline_responses WHERE license_id = $1 AND nonce = $2 AND expires_at > $3', [licenseId, nonce, now]);
  return rows[0]?.body;
}

/**
 * Wraps a machine credential into the signed offline answer (with the certificate of the epoch that
 * signed both, so an air-gapped device verifies it against its pinned root alone: the newest carry-over
 * certificate of the epoch after a root rotation, else its primary one) and archives it by
 * (license, nonce) in the activation's transaction.
 *
 * @param tx - The activation's transaction.
 * @param input - The epoch signer of the credential, the credential, the license, machine, nonce and time.
 * @returns The `offline-response` envelope.
 * @throws LicenseClientError 5000 (503) when the epoch's certificate is not stored yet.
 * @example
 * ```ts
 * import { signOfflineAnswer } from '@tollgate/core/license';
 * const body = await signOfflineAnswer(tx, { signer, credential, license, machineId, nonce, now });
 * ```
 */
export async function signOfflineAnswer(
  tx: SqlClient,
  input: { signer: Signer; credential: Uint8Array; license: ActivationLicense; machineId: string; nonce: Uint8Array; now: Date },
): Promise<Uint8Array> {
  // After a root rotation the epoch is listed under the newest carry-over certificate (another root's,
  // migration 014), which a device pinning only the new root can verify; else the primary certificate.
  const { rows } = await tx.query<{ certificate: Uint8Array | null }>(
    `SELECT COALESCE((SELECT c.certificate FROM license_epoch_certificates c WHERE c.epoch_id = e.epoch_id ORDER BY c.created_at DESC LIMIT 1), e.certificate) AS certificate
     FROM license_epochs e WHERE e.epoch_id = $1`,
    [hexDecode(input.signer.kid)],
  );
  const certificate = rows[0]?.certificate;
  if (certificate === undefined || certificate === null) throw new LicenseClientError(5000, 'The signing epoch has no stored certificate yet; retry shortly.', { status: 503, retryAfterSeconds: 1 });
  const serverTime = Math.floor(input.now.getTime() / 1000);
  const validUntil = serverTime + offlineAnswerValiditySeconds;
  const answer: OfflineResponse = { protoVersion: 1, nonceEcho: input.nonce, credential: input.credential, certificates: [certificate], serverTime, validUntil };
  const { envelope: body } = await signClientArtifact([], 'offline-response', answer, { productId: input.license.productId, now: serverTime, signer: input.signer });
  // An expired archive of the same nonce is replaced (it could no longer be imported).
  await tx.query(
    `INSERT INTO license_offline_responses (license_id, nonce, machine_id, body, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (license_id, nonce) DO UPDATE SET machine_id = EXCLUDED.machine_id, body = EXCLUDED.body, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
     WHERE license_offline_responses.expires_at <= EXCLUDED.created_at`,
    [
      input.license.licenseId,
      input.nonce,
      input.machineId,
      body,
      input.now,
      new Date(validUntil * 1000),
    ],
  );
  return body;
}
