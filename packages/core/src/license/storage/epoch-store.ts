import { constantTimeEqual, generateEd25519KeyPair, hexEncode, randomBytes, type RandomSource } from '../../crypto';
import type { SqlClient } from '../../storage/sql-client';
import { systemClock, unixSeconds, type Clock } from '../../time/clock';
import { encodeEpochCertificateRequest, verifyEpochCertificate, type VerifiedEpoch } from '../epoch-certificate';
import { isLegacySealedEpochKey, openEpochPrivateKey, sealEpochPrivateKey } from '../epoch-key-seal';
import { licenseWireLengths } from '../protocol';
import { TrustChainError } from '../trust-chain-error';
import type { EpochKey, SignatureVerifier } from '../verify-artifact';

/**
 * Life cycle of a stored epoch: `pending` (waiting for its certificate), `active` (published, signs),
 * `revoked` (named by a published revocation batch: never signs again, but its certificate stays in the
 * keyset so the batches it signed before stay verifiable).
 */
export type EpochStatus = 'pending' | 'active' | 'revoked';

/** An epoch as stored (never with its private key). */
export interface StoredEpoch extends EpochKey {
  readonly status: EpochStatus;
  /** The root-signed certificate, once loaded. */
  readonly certificate: Uint8Array | undefined;
  readonly createdAt: Date;
  readonly activatedAt: Date | undefined;
  /**
   * When its sealed private key was wiped (revoked, or past its window: see `wipeRetiredEpochKeys`);
   * `undefined` while the key is stored.
   */
  readonly keyWipedAt: Date | undefined;
}

/**
 * A `license_epochs` row as the stores select it ({@link epochColumns}): never the sealed private key.
 * Readers that join more columns extend it (epoch administration adds the revocation time and vendor).
 */
export type EpochRow = {
  epoch_id: Uint8Array;
  public_key: Uint8Array;
  product_scope: string | null;
  not_before: string;
  not_after: string;
  status: EpochStatus;
  certificate: Uint8Array | null;
  created_at: Date;
  activated_at: Date | null;
  key_wiped_at: Date | null;
};

/** The columns of an {@link EpochRow}, in `SELECT` order. */
export const epochColumns = 'epoch_id, public_key, product_scope, not_before, not_after, status, certificate, created_at, activated_at, key_wiped_at';

/**
 * The {@link StoredEpoch} of a selected row (frozen; `productScope` absent for a global epoch).
 *
 * @param row - A row with the {@link epochColumns}.
 * @returns The epoch.
 *
 * @example
 * ```ts
 * const { rows } = await sql.query<EpochRow>(`SELECT ${epochColumns} FROM license_epochs`);
 * const epochs = rows.map(toStoredEpoch);
 * ```
 */
export function toStoredEpoch(row: EpochRow): StoredEpoch {
  return Object.freeze({
    epochId: row.epoch_id,
    epochIdHex: hexEncode(row.epoch_id),
    publicKey: row.public_key,
    notBefore: Number(row.not_before),
    notAfter: Number(row.not_after),
    ...(row.product_scope === null ? {} : { productScope: row.product_scope }),
    status: row.status,
    certificate: row.certificate ?? undefined,
    createdAt: row.created_at,
    activatedAt: row.activated_at ?? undefined,
    keyWipedAt: row.key_wiped_at ?? undefined,
  });
}

/** Options of {@link createPendingEpoch}. */
export interface CreatePendingEpochOptions {
  /** 32-byte master key that seals the private key at rest. */
  masterKey: Uint8Array;
  /** First valid second (unix). */
  notBefore: number;
  /** First second after validity (exclusive). */
  notAfter: number;
  /** Restricts the epoch to one product; absent = every product and the global kinds. */
  productScope?: string;
  /** Source of `created_at`. */
  clock?: Clock;
  /** Source of the epoch id and key seed (the platform CSPRNG by default). */
  random?: RandomSource;
}

/**
 * Step 2 of the key ceremony (`epoch create`): generates an epoch key pair, stores it sealed under the
 * master key as `pending`, and returns the certificate request to carry to the offline root.
 *
 * @param sql - A database with `licenseMigrations` applied.
 * @param options - Master key, window, scope.
 * @returns The stored epoch and the request bytes (`EpochCertificateRequest`).
 * @throws {@link ArtifactError} `invalid_payload` for a bad window or scope.
 *
 * @example
 * ```ts
 * import { hexEncode } from '@tollgate/core';
 * import { createPendingEpoch } from '@tollgate/core/license';
 * const { request } = await createPendingEpoch(sql, { masterKey, notBefore: now, notAfter: now + 90 * 86_400 });
 * console.log(hexEncode(request));
 * ```
 */
export async function createPendingEpoch(sql: SqlClient, options: CreatePendingEpochOptions): Promise<{ epoch: StoredEpoch; request: Uint8Array }> {
  const random = options.random ?? randomBytes;
  const epochId = random(licenseWireLengths.epochId);
  const { privateKey, publicKey } = generateEd25519KeyPair(random);
  const request = encodeEpochCertificateRequest({
    protoVersion: 1,
    epochId,
    publicKey,
    notBefore: options.notBefore,
    notAfter: options.notAfter,
    ...(options.productScope === undefined ? {} : { productScope: options.productScope }),
  });
  const sealed = sealEpochPrivateKey(options.masterKey, epochId, privateKey, random);
  privateKey.fill(0);
  const { rows } = await sql.query<EpochRow>(
    `INSERT INTO license_epochs (epoch_id, public_key, sealed_private_key, product_scope, not_before, not_after, status, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7) RETURNING ${epochColumns}`,
    [epochId, publicKey, sealed, options.productScope ?? null, options.notBefore, options.notAfter, new Date((options.clock ?? systemClock).now())],
  );
  return { epoch: toStoredEpoch(rows[0] as EpochRow), request };
}

/** Options of {@link activateEpochCertificate}. */
export interface ActivateEpochCertificateOptions {
  /** The root-signed certificate envelope. */
  certificate: Uint8Array;
  /** The configured pinned roots (`LICENSE_ROOT_PUBLIC_KEYS`). */
  pinnedRoots: readonly Uint8Array[];
  clock?: Clock;
  verify?: SignatureVerifier;
}

/**
 * Step 4 of the key ceremony (`epoch load`, and the Admin `POST /v1/admin/epochs` route): verifies the
 * certificate against the pinned roots, checks it certifies exactly the pending epoch the server
 * generated (same key, window and scope), and activates it. Loading the same certificate again is a
 * no-op. Refresh the keyset afterwards.
 *
 * @param sql - The database.
 * @param options - Certificate, pins, clock, verifier.
 * @returns The activated epoch.
 * @throws `ArtifactError` when the certificate does not verify or has expired;
 *   {@link TrustChainError} `unknown_epoch`, `certificate_mismatch` or `epoch_revoked`.
 *
 * @example
 * ```ts
 * import { activateEpochCertificate } from '@tollgate/core/license';
 * const epoch = await activateEpochCertificate(sql, { certificate, pinnedRoots });
 * ```
 */
export async function activateEpochCertificate(sql: SqlClient, options: ActivateEpochCertificateOptions): Promise<VerifiedEpoch> {
  const clock = options.clock ?? systemClock;
  const epoch = verifyEpochCertificate(options.certificate, {
    pinnedRoots: options.pinnedRoots,
    at: unixSeconds(clock),
    ...(options.verify === undefined ? {} : { verify: options.verify }),
  });
  return sql.transaction(async (tx) => {
    const { rows } = await tx.query<EpochRow>(`SELECT ${epochColumns} FROM license_epochs WHERE epoch_id = $1 FOR UPDATE`, [epoch.epochId]);
    const row = rows[0];
    if (row === undefined) throw new TrustChainError('unknown_epoch', `No epoch ${epoch.epochIdHex} was created on this server.`, { details: { epochId: epoch.epochIdHex } });
    const stored = toStoredEpoch(row);
    if (stored.status === 'revoked') throw new TrustChainError('epoch_revoked', `Epoch ${epoch.epochIdHex} is revoked.`, { details: { epochId: epoch.epochIdHex } });
    if (stored.keyWipedAt !== undefined) {
      throw new TrustChainError('unknown_epoch', `The private key of epoch ${epoch.epochIdHex} was wiped (its window has passed): create a new epoch.`, {
        details: { epochId: epoch.epochIdHex },
      });
    }
    const matches =
      constantTimeEqual(stored.publicKey, epoch.publicKey) &&
      stored.notBefore === epoch.notBefore &&
      stored.notAfter === epoch.notAfter &&
      stored.productScope === epoch.productScope;
    if (!matches) {
      throw new TrustChainError('certificate_mismatch', `The certificate does not certify the key, window and scope requested for epoch ${epoch.epochIdHex}.`, {
        details: { epochId: epoch.epochIdHex },
      });
    }
    if (stored.status === 'active') {
      if (stored.certificate !== undefined && constantTimeEqual(stored.certificate, options.certificate)) return epoch;
      throw new TrustChainError('certificate_mismatch', `Epoch ${epoch.epochIdHex} is already active with another certificate.`, { details: { epochId: epoch.epochIdHex } });
    }
    await tx.query(`UPDATE license_epochs SET status = 'active', certificate = $2, activated_at = $3 WHERE epoch_id = $1`, [
      epoch.epochId,
      options.certificate,
      new Date(clock.now()),
    ]);
    return epoch;
  });
}

/**
 * Every stored epoch, oldest first, without private keys.
 *
 * @param sql - The database.
 * @returns The epochs.
 *
 * @example
 * ```ts
 * import { listEpochs } from '@tollgate/core/license';
 * for (const epoch of await listEpochs(sql)) console.log(epoch.epochIdHex, epoch.status);
 * ```
 */
export async function listEpochs(sql: SqlClient): Promise<StoredEpoch[]> {
  const { rows } = await sql.query<EpochRow>(`SELECT ${epochColumns} FROM license_epochs ORDER BY created_at, epoch_id`);
  return rows.map(toStoredEpoch);
}

/** An active epoch with its opened private key: turn it into a `Signer` right away and drop the seed. */
export interface EpochSigningKey {
  readonly epoch: StoredEpoch;
  readonly privateKey: Uint8Array;
}

/** An active epoch whose sealed key the master key did not open. */
export interface UnopenableEpoch {
  readonly epoch: StoredEpoch;
  /** Why (a `CryptoError` `invalid_key`: another master key sealed it, or the row was altered). */
  readonly error: unknown;
}

/** What {@link loadEpochSigningKeys} opened, and what it could not. */
export interface LoadedEpochSigningKeys {
  /** Opened epochs, oldest `notBefore` first. */
  readonly keys: EpochSigningKey[];
  /** Epochs skipped because their key did not open; each one is reported, none stops the others. */
  readonly unopenable: UnopenableEpoch[];
  /** Epoch ids (hex) whose keys this call wiped because they can never sign again. */
  readonly wiped: string[];
}

/**
 * Wipes the sealed private keys that can never sign again: those of epochs whose window has ended
 * (`notAfter ≤ now`, whatever their status) and of revoked epochs (the database already wipes those in
 * the revoking statement, migration 012; this catches rows from before it). A wiped key is never
 * restored (the database refuses it). `loadEpochSigningKeys` runs it before opening keys, so every
 * keyset rebuild of every instance wipes what expired since; a CLI or job may also run it.
 *
 * Wiping overwrites the column; PostgreSQL keeps the old row version until `VACUUM` reclaims it, and
 * backups taken before keep the sealed key (still encrypted under the master key).
 *
 * @param sql - The database.
 * @param options - `now` (unix seconds) and the clock of `key_wiped_at`.
 * @returns The epoch ids (hex) wiped by this call.
 *
 * @example
 * ```ts
 * import { wipeRetiredEpochKeys } from '@tollgate/core/license';
 * const wiped = await wipeRetiredEpochKeys(sql, { now: Math.floor(Date.now() / 1000) });
 * ```
 */
export async function wipeRetiredEpochKeys(sql: SqlClient, options: { now: number; clock?: Clock }): Promise<string[]> {
  const { rows } = await sql.query<{ epoch_id: Uint8Array }>(
    `UPDATE license_epochs SET sealed_private_key = NULL, key_wiped_at = $2
      WHERE sealed_private_key IS NOT NULL AND (not_after <= $1 OR status = 'revoked')
      RETURNING epoch_id`,
    [options.now, new Date((options.clock ?? systemClock).now())],
  );
  return rows.map((row) => hexEncode(row.epoch_id)).sort();
}

/**
 * Opens the private keys of the active, unexpired epochs (the ones the server may sign with). First it
 * wipes the keys that can never sign again ({@link wipeRetiredEpochKeys}). An epoch whose key does not
 * open (sealed under another master key, or altered) is skipped and reported in `unopenable`, so one
 * bad row never stops the others from signing. A key still in the legacy unversioned form is re-sealed
 * in the current form (`sealEpochPrivateKey`) once it opened; the update only applies if the row still
 * holds the bytes that were read.
 *
 * @param sql - The database.
 * @param options - Master key and time (unix seconds).
 * @returns The opened keys, oldest `notBefore` first, and the unopenable epochs.
 *
 * @example
 * ```ts
 * import { loadEpochSigningKeys } from '@tollgate/core/license';
 * import { createNodeEd25519Signer } from '@tollgate/core/node';
 * const { keys, unopenable } = await loadEpochSigningKeys(sql, { masterKey, now });
 * for (const { epoch } of unopenable) console.warn(`epoch ${epoch.epochIdHex} does not open`);
 * const signers = keys.map(({ epoch, privateKey }) => ({ epoch, signer: createNodeEd25519Signer({ privateKey, kid: epoch.epochIdHex }) }));
 * ```
 */
export async function loadEpochSigningKeys(sql: SqlClient, options: { masterKey: Uint8Array; now: number }): Promise<LoadedEpochSigningKeys> {
  const wiped = await wipeRetiredEpochKeys(sql, { now: options.now });
  const { rows } = await sql.query<EpochRow & { sealed_private_key: Uint8Array }>(
    `SELECT ${epochColumns}, sealed_private_key FROM license_epochs
      WHERE status = 'active' AND not_after > $1 AND sealed_private_key IS NOT NULL ORDER BY not_before, epoch_id`,
    [options.now],
  );
  const keys: EpochSigningKey[] = [];
  const unopenable: UnopenableEpoch[] = [];
  for (const row of rows) {
    const epoch = toStoredEpoch(row);
    let privateKey: Uint8Array;
    try {
      privateKey = openEpochPrivateKey(options.masterKey, row.epoch_id, row.sealed_private_key);
    } catch (error) {
      unopenable.push({ epoch, error });
      continue;
    }
    if (isLegacySealedEpochKey(row.sealed_private_key)) {
      await sql.query('UPDATE license_epochs SET sealed_private_key = $2 WHERE epoch_id = $1 AND sealed_private_key = $3', [
        row.epoch_id,
        sealEpochPrivateKey(options.masterKey, row.epoch_id, privateKey),
        row.sealed_private_key,
      ]);
    }
    keys.push({ epoch, privateKey });
  }
  return { keys, unopenable, wiped };
}
