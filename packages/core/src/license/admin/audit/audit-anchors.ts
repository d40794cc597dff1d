import type { Signer } from '../../../crypto';
import { hexDecode, hexEncode } from '../../../crypto/hex';
import { isHexId } from '../../../crypto/random';
import type { SqlClient } from '../../../storage/sql-client';
import { systemClock, unixSeconds, type Clock } from '../../../time/clock';
import { isArtifactError } from '../../artifact-error';
import type { AuditAnchor } from '../../payloads/audit-anchor';
import { signArtifact } from '../../sign-artifact';
import { signerKeyId } from '../../signing-key-id';
import { TrustChainError } from '../../trust-chain-error';
import { verifyArtifact, type EpochKey, type SignatureVerifier } from '../../verify-artifact';

/** What an anchor states, in the Admin API's spelling (hex ids and hashes). */
export interface AnchoredAuditHead {
  /** The vendor (32 lower-case hex digits). */
  readonly vendorId: string;
  /** How many events were anchored: the seq of the head. */
  readonly seq: number;
  /** The hash of event `seq` (64 lower-case hex digits). */
  readonly head: string;
  /** When it was signed (unix seconds). */
  readonly anchoredAt: number;
}

/** An anchor as stored and served: the statement and its signed `audit-anchor` envelope. */
export interface StoredAuditAnchor extends AnchoredAuditHead {
  readonly envelope: Uint8Array;
}

/** Options of {@link anchorAuditHeads}. */
export interface AnchorAuditHeadsOptions {
  /** Source of `anchoredAt` (the system clock by default). */
  clock?: Clock;
  /** Checks each signed envelope against the stored epoch key; `verifyEd25519` by default. */
  verify?: SignatureVerifier;
}

type SignerRow = { public_key: Uint8Array; product_scope: string | null; not_before: string; not_after: string; status: string };

/**
 * The stored epoch the signer claims to be, refused unless a third party could verify an anchor it signs
 * at `anchoredAt`: active, global and inside its window (the rule revocation batches follow).
 */
async function loadAnchorSigningEpoch(sql: SqlClient, signer: Signer, anchoredAt: number): Promise<EpochKey> {
  const epochId = signerKeyId(signer);
  const epochIdHex = hexEncode(epochId);
  const refuse = (problem: string, message: string) => new TrustChainError('invalid_signer', message, { details: { epochId: epochIdHex, problem } });
  const { rows } = await sql.query<SignerRow>('SELECT public_key, product_scope, not_before, not_after, status FROM license_epochs WHERE epoch_id = $1', [epochId]);
  const row = rows[0];
  if (row === undefined) throw refuse('unknown_epoch', `No stored epoch ${epochIdHex} may sign audit anchors.`);
  if (row.status !== 'active') throw refuse('not_active', `Epoch ${epochIdHex} is ${row.status}, not active.`);
  if (row.product_scope !== null) throw refuse('product_scoped', `Epoch ${epochIdHex} is scoped to a product; audit anchors need a global epoch.`);
  const epoch: EpochKey = { epochId, epochIdHex, publicKey: row.public_key, notBefore: Number(row.not_before), notAfter: Number(row.not_after) };
  if (anchoredAt < epoch.notBefore || anchoredAt >= epoch.notAfter) throw refuse('outside_window', `Epoch ${epochIdHex} is not valid at ${anchoredAt}.`);
  return epoch;
}

// A vendor needs an anchor when its head is past the newest anchored seq.
const unanchoredHead = `h.seq > COALESCE((SELECT max(a.seq) FROM license_audit_anchors a WHERE a.vendor_id = h.vendor_id), 0)`;

async function anchorVendor(tx: SqlClient, vendorId: string, signer: Signer, epoch: EpochKey, anchoredAt: number, verify: SignatureVerifier | undefined): Promise<StoredAuditAnchor | undefined> {
  const { rows } = await tx.query<{ seq: string; hash: Uint8Array }>(`SELECT h.seq, h.hash FROM license_audit_heads h WHERE h.vendor_id = $1 AND ${unanchoredHead}`, [vendorId]);
  const head = rows[0];
  if (head === undefined) return undefined;
  const anchor: AuditAnchor = { protoVersion: 1, vendorId: hexDecode(vendorId), seq: Number(head.seq), head: head.hash, anchoredAt };
  const envelope = await signArtifact('audit-anchor', anchor, { signer });
  try {
    verifyArtifact(envelope, 'audit-anchor', { keys: { epochs: new Map([[epoch.epochIdHex, epoch]]) }, now: anchoredAt, ...(verify === undefined ? {} : { verify }) });
  } catch (error) {
    if (!isArtifactError(error)) throw error;
    throw new TrustChainError('invalid_signer', `The anchor signed as epoch ${epoch.epochIdHex} does not verify with its stored public key (${error.reason}).`, {
      details: { epochId: epoch.epochIdHex, problem: 'signature' },
      cause: error,
    });
  }
  // Another instance may have anchored this very head meanwhile: one anchor per position is enough.
  const inserted = await tx.query(
    `INSERT INTO license_audit_anchors (vendor_id, seq, head, envelope, anchored_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (vendor_id, seq) DO NOTHING`,
    [vendorId, anchor.seq, head.hash, envelope, new Date(anchoredAt * 1000)],
  );
  if (inserted.rowCount === 0) return undefined;
  return { vendorId, seq: anchor.seq, head: hexEncode(head.hash), anchoredAt, envelope };
}

/**
 * Signs and stores an anchor for every vendor whose audit head moved since its last anchor: the head's
 * seq and hash, signed with `signer` as an `audit-anchor` artifact. Each vendor is anchored in its own
 * transaction (a savepoint when `sql` is a transaction). Idempotent: run again without new events, it
 * stores nothing; two runs racing store one anchor per head position.
 *
 * **Only verifiable anchors are stored.** The signer's `kid` must name a stored epoch that is active,
 * global and valid now, and every envelope must verify with that epoch's stored public key; otherwise
 * `TrustChainError('invalid_signer')` (`details.problem` says why) before anything is stored.
 *
 * @param sql - A database with `licenseMigrations` applied.
 * @param signer - A **global** epoch's signer (`pickSigningEpoch(epochs, { now })`).
 * @param options - Clock, signature verifier.
 * @returns The anchors stored by this run, by vendor id.
 * @throws {@link TrustChainError} `invalid_signer`.
 * @example
 * ```ts
 * import { anchorAuditHeads, pickSigningEpoch } from '@tollgate/core/license';
 * const { signer } = pickSigningEpoch(epochs, { now: Math.floor(Date.now() / 1000) });
 * const stored = await anchorAuditHeads(sql, signer, { clock: systemClock });
 * ```
 */
export async function anchorAuditHeads(sql: SqlClient, signer: Signer, options: AnchorAuditHeadsOptions = {}): Promise<StoredAuditAnchor[]> {
  const anchoredAt = unixSeconds(options.clock ?? systemClock);
  const epoch = await loadAnchorSigningEpoch(sql, signer, anchoredAt);
  const { rows } = await sql.query<{ vendor_id: string }>(`SELECT h.vendor_id FROM license_audit_heads h WHERE ${unanchoredHead} ORDER BY h.vendor_id`);
  const stored: StoredAuditAnchor[] = [];
  for (const { vendor_id: vendorId } of rows) {
    const anchor = await sql.transaction((tx) => anchorVendor(tx, vendorId, signer, epoch, anchoredAt, options.verify));
    if (anchor !== undefined) stored.push(anchor);
  }
  return stored;
}

/** Most anchors one {@link listAuditAnchors} call returns. */
export const maxAuditAnchorPage = 1000;

/**
 * A vendor's anchors, newest first (highest seq first). A malformed vendor id names no vendor: no
 * anchors.
 *
 * @param sql - The database.
 * @param vendorId - The vendor (32 lower-case hex digits).
 * @param limit - How many, 1 to 1,000.
 * @returns The anchors with their envelopes.
 * @throws TypeError for a limit outside 1..1,000.
 * @example
 * ```ts
 * import { listAuditAnchors } from '@tollgate/core/license';
 * const [latest] = await listAuditAnchors(sql, vendorId, 1);
 * ```
 */
export async function listAuditAnchors(sql: SqlClient, vendorId: string, limit: number): Promise<StoredAuditAnchor[]> {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > maxAuditAnchorPage) throw new TypeError(`limit must be a whole number from 1 to ${maxAuditAnchorPage}.`);
  if (!isHexId(vendorId, 16)) return [];
  const { rows } = await sql.query<{ seq: string; head: Uint8Array; envelope: Uint8Array; anchored_at: Date }>(
    'SELECT seq, head, envelope, anchored_at FROM license_audit_anchors WHERE vendor_id = $1 ORDER BY seq DESC LIMIT $2',
    [vendorId, limit],
  );
  return rows.map((row) => ({ vendorId, seq: Number(row.seq), head: hexEncode(row.head), anchoredAt: Math.floor(row.anchored_at.getTime() / 1000), envelope: row.envelope }));
}
