import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { hexEncode } from '../../crypto/hex';
import { randomBytes } from '../../crypto/random';
import { utf8Encode } from '../../crypto/utf8';
import type { SqlClient, SqlParam } from '../../storage/sql-client';
import { deriveLicenseSubkey } from '../admin/admin-keys';
import { integrityManifestSigningMessage, integritySignerFingerprint } from './manifest';

/**
 * HKDF-SHA-256 label of the master-key subkey that seals integrity signer private keys at rest (salt
 * `tollgate/license`, as every license subkey). Changing it orphans every stored signer key.
 *
 * @example
 * ```ts
 * import { deriveLicenseSubkey, integritySignerSealSubkeyLabel } from '@tollgate/core/license';
 * const sealKey = deriveLicenseSubkey(masterKey, integritySignerSealSubkeyLabel);
 * ```
 */
export const integritySignerSealSubkeyLabel = 'tollgate/license/integrity-signer-seal/v1';

const sealVersion = 1;

/** A signer key as the Admin API shows it: never the private half. */
export interface IntegritySignerKey {
  /** 64 lower-case hex digits ({@link integritySignerFingerprint}). */
  readonly fingerprint: string;
  readonly vendorId: string;
  readonly productId: string;
  readonly publicKey: Uint8Array;
  readonly label: string;
  readonly status: 'registered' | 'revoked';
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
}

/**
 * Seals and opens signer private keys under a subkey of the master key. The associated data binds each
 * sealed key to its vendor, product and fingerprint, so a sealed key copied to another row does not open.
 */
export class IntegritySignerSeal {
  readonly #key: Uint8Array;

  /** @param masterKey - `LICENSE_MASTER_KEY` (32 bytes); only its subkey is kept. */
  constructor(masterKey: Uint8Array) {
    this.#key = deriveLicenseSubkey(masterKey, integritySignerSealSubkeyLabel);
  }

  /** `version ‖ nonce (24) ‖ XChaCha20-Poly1305(seed)`. */
  seal(seed: Uint8Array, bound: { vendorId: string; productId: string; fingerprint: string }): Uint8Array {
    const nonce = randomBytes(24);
    const sealed = xchacha20poly1305(this.#key, nonce, associatedData(bound)).encrypt(seed);
    const out = new Uint8Array(1 + nonce.length + sealed.length);
    out[0] = sealVersion;
    out.set(nonce, 1);
    out.set(sealed, 1 + nonce.length);
    return out;
  }

  /** @throws Error when the sealed key is not of this format or does not belong to `bound`. */
  open(sealed: Uint8Array, bound: { vendorId: string; productId: string; fingerprint: string }): Uint8Array {
    if (sealed[0] !== sealVersion || sealed.length !== 1 + 24 + 32 + 16) throw new Error('A sealed integrity signer key has an unknown format.');
    return xchacha20poly1305(this.#key, sealed.subarray(1, 25), associatedData(bound)).decrypt(sealed.subarray(25));
  }
}

function associatedData(bound: { vendorId: string; productId: string; fingerprint: string }): Uint8Array {
  return utf8Encode(`${integritySignerSealSubkeyLabel}\u0000${bound.vendorId}\u0000${bound.productId}\u0000${bound.fingerprint}`);
}

/**
 * Generates a signer key for a product and stores it (`registered`), the private half sealed.
 *
 * @param sql - The transaction of the registering request.
 * @param seal - The sealer.
 * @param input - Owner, product, label, time.
 * @returns The new key.
 */
export async function createIntegritySignerKey(
  sql: SqlClient,
  seal: IntegritySignerSeal,
  input: { vendorId: string; productId: string; label: string; now: Date },
): Promise<IntegritySignerKey> {
  const seed = randomBytes(32);
  const publicKey = ed25519.getPublicKey(seed);
  const fingerprint = hexEncode(integritySignerFingerprint(publicKey));
  const sealed = seal.seal(seed, { vendorId: input.vendorId, productId: input.productId, fingerprint });
  seed.fill(0);
  await sql.query(
    `INSERT INTO license_integrity_signer_keys (fingerprint, vendor_id, product_id, public_key, sealed_seed, label, status, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, 'registered', $7)`,
    [fingerprint, input.vendorId, input.productId, publicKey, sealed, input.label, input.now],
  );
  return { fingerprint, vendorId: input.vendorId, productId: input.productId, publicKey, label: input.label, status: 'registered', createdAt: input.now, revokedAt: null };
}

const columns = 'fingerprint, vendor_id, product_id, public_key, label, status, created_at, revoked_at';
type Row = { fingerprint: string; vendor_id: string; product_id: string; public_key: Uint8Array; label: string; status: string; created_at: Date | string; revoked_at: Date | string | null; sealed_seed?: Uint8Array };

function fromRow(row: Row): IntegritySignerKey {
  return {
    fingerprint: row.fingerprint,
    vendorId: row.vendor_id,
    productId: row.product_id,
    publicKey: new Uint8Array(row.public_key),
    label: row.label,
    status: row.status === 'revoked' ? 'revoked' : 'registered',
    createdAt: new Date(row.created_at),
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
  };
}

/**
 * One vendor's signer key by fingerprint (another vendor's is `undefined`, as a missing one).
 *
 * @param sql - Database or transaction.
 * @param vendorId - The caller's vendor.
 * @param fingerprint - 64 hex digits.
 * @param lock - `FOR UPDATE` (a revocation) or none.
 * @returns The key, if any.
 */
export async function findIntegritySignerKey(sql: SqlClient, vendorId: string, fingerprint: string, lock: 'update' | 'none' = 'none'): Promise<IntegritySignerKey | undefined> {
  const { rows } = await sql.query<Row>(`SELECT ${columns} FROM license_integrity_signer_keys WHERE fingerprint = $1 AND vendor_id = $2${lock === 'update' ? ' FOR UPDATE' : ''}`, [fingerprint, vendorId]);
  return rows[0] === undefined ? undefined : fromRow(rows[0]);
}

/**
 * A page of one vendor's signer keys, oldest first, optionally of one product and status.
 *
 * @param sql - The database.
 * @param filter - Vendor, product, status, page.
 * @returns Up to `limit + 1` keys (the extra one tells a next page exists).
 */
export async function listIntegritySignerKeys(
  sql: SqlClient,
  filter: { vendorId: string; productId?: string; status?: 'registered' | 'revoked'; limit: number; after?: { at: number; id: string } },
): Promise<IntegritySignerKey[]> {
  const conditions = ['vendor_id = $1'];
  const values: SqlParam[] = [filter.vendorId];
  if (filter.productId !== undefined) conditions.push(`product_id = $${values.push(filter.productId)}`);
  if (filter.status !== undefined) conditions.push(`status = $${values.push(filter.status)}`);
  if (filter.after !== undefined) {
    const at = values.push(new Date(filter.after.at));
    const id = values.push(filter.after.id);
    conditions.push(`(created_at, fingerprint) > ($${at}, $${id})`);
  }
  const limit = values.push(filter.limit + 1);
  const { rows } = await sql.query<Row>(`SELECT ${columns} FROM license_integrity_signer_keys WHERE ${conditions.join(' AND ')} ORDER BY created_at, fingerprint LIMIT $${limit}`, values);
  return rows.map(fromRow);
}

/**
 * Marks a registered key revoked. The caller holds the row lock (`findIntegritySignerKey(…, 'update')`).
 *
 * @param sql - The transaction.
 * @param fingerprint - The key.
 * @param now - Revocation time.
 * @returns Whether a registered key changed state (false: it was already revoked).
 */
export async function revokeIntegritySignerKey(sql: SqlClient, fingerprint: string, now: Date): Promise<boolean> {
  const { rows } = await sql.query(`UPDATE license_integrity_signer_keys SET status = 'revoked', revoked_at = $2 WHERE fingerprint = $1 AND status = 'registered' RETURNING fingerprint`, [fingerprint, now]);
  return rows.length > 0;
}

/**
 * Signs a manifest with a registered key of the product, or says why not. The key row is read `FOR
 * SHARE` in the caller's transaction: a revocation waits for the signature's audit event to commit, and
 * a signature requested after a revocation committed sees it revoked. Never more than that.
 *
 * @param sql - The transaction of the signing request.
 * @param seal - The sealer.
 * @param request - Vendor, product, signer fingerprint and the manifest bytes.
 * @returns The signature, or `not_registered` (unknown, revoked or another product's key).
 */
export async function signWithIntegrityKey(
  sql: SqlClient,
  seal: IntegritySignerSeal,
  request: { vendorId: string; productId: string; fingerprint: string; manifest: Uint8Array },
): Promise<{ kind: 'signed'; signature: Uint8Array } | { kind: 'not_registered' }> {
  const { rows } = await sql.query<Row>(
    `SELECT ${columns}, sealed_seed FROM license_integrity_signer_keys WHERE fingerprint = $1 AND vendor_id = $2 AND product_id = $3 FOR SHARE`,
    [request.fingerprint, request.vendorId, request.productId],
  );
  const row = rows[0];
  if (row === undefined || row.status !== 'registered' || row.sealed_seed === undefined) return { kind: 'not_registered' };
  const seed = seal.open(new Uint8Array(row.sealed_seed), { vendorId: row.vendor_id, productId: row.product_id, fingerprint: row.fingerprint });
  try {
    return { kind: 'signed', signature: ed25519.sign(integrityManifestSigningMessage(request.manifest), seed) };
  } finally {
    seed.fill(0);
  }
}
