import { hexEncode, type Signer } from '../../crypto';
import type { SqlClient } from '../../storage/sql-client';
import { systemClock, unixSeconds, type Clock } from '../../time/clock';
import { isArtifactError } from '../artifact-error';
import type { RevocationBatch } from '../payloads/revocation-batch';
import { licenseWireLengths, maxRevocationBatchIds } from '../protocol';
import { revocationPageRange, type RevocationPageRange } from '../revocation-feed-format';
import { compareBytes } from '../schemas';
import { signArtifact } from '../sign-artifact';
import { signerKeyId } from '../signing-key-id';
import { TrustChainError } from '../trust-chain-error';
import { verifyArtifact, type EpochKey, type SignatureVerifier } from '../verify-artifact';

/** What to revoke in one batch (any mix; at least one id, at most 1,024). */
export interface RevocationBatchInput {
  licenseIds?: readonly Uint8Array[];
  machineIds?: readonly Uint8Array[];
  epochIds?: readonly Uint8Array[];
}

/** A batch that was published. */
export interface PublishedRevocationBatch {
  /** Its sequence number: the new revocation epoch. */
  readonly seq: number;
  /** The signed envelope, served verbatim forever. */
  readonly envelope: Uint8Array;
  readonly batch: RevocationBatch;
}

function normalizeIds(ids: readonly Uint8Array[] | undefined, length: number, what: string): Uint8Array[] {
  const list = [...(ids ?? [])];
  for (const id of list) {
    if (!(id instanceof Uint8Array) || id.length !== length) {
      throw new TrustChainError('invalid_batch', `Every ${what} is ${length} bytes.`, { details: { field: what } });
    }
  }
  // Sorted and deduplicated: the layout requires strictly ascending ids.
  list.sort(compareBytes);
  return list.filter((id, index) => index === 0 || compareBytes(list[index - 1] as Uint8Array, id) !== 0).map((id) => id.slice());
}

type SignerRow = { public_key: Uint8Array; product_scope: string | null; not_before: string; not_after: string; status: string };

/**
 * The stored epoch a batch signer claims to be (by its `kid`), refused unless clients could verify a
 * batch it signs at `issuedAt`: active, global, and inside its window.
 */
async function loadBatchSigningEpoch(tx: SqlClient, signer: Signer, issuedAt: number): Promise<EpochKey> {
  const epochId = signerKeyId(signer);
  const epochIdHex = hexEncode(epochId);
  const refuse = (problem: string, message: string) => new TrustChainError('invalid_signer', message, { details: { epochId: epochIdHex, problem } });
  const { rows } = await tx.query<SignerRow>('SELECT public_key, product_scope, not_before, not_after, status FROM license_epochs WHERE epoch_id = $1', [epochId]);
  const row = rows[0];
  if (row === undefined) throw refuse('unknown_epoch', `No stored epoch ${epochIdHex} may sign revocation batches.`);
  if (row.status !== 'active') throw refuse('not_active', `Epoch ${epochIdHex} is ${row.status}, not active.`);
  if (row.product_scope !== null) throw refuse('product_scoped', `Epoch ${epochIdHex} is scoped to a product; revocation batches need a global epoch.`);
  const epoch: EpochKey = { epochId, epochIdHex, publicKey: row.public_key, notBefore: Number(row.not_before), notAfter: Number(row.not_after) };
  if (issuedAt < epoch.notBefore || issuedAt >= epoch.notAfter) throw refuse('outside_window', `Epoch ${epochIdHex} is not valid at ${issuedAt}.`);
  return epoch;
}

/** Options of {@link publishRevocationBatch}. */
export interface PublishRevocationBatchOptions {
  /** Source of `issuedAt` and `published_at`. */
  clock?: Clock;
  /** Checks the signed envelope against the stored public key; `verifyEd25519` by default. */
  verify?: SignatureVerifier;
}

/**
 * Publishes one revocation batch atomically: in one transaction it bumps the feed head
 * (`seq = head + 1`, an upsert whose row lock serialises concurrent publishers, so sequence numbers
 * never fork and never skip), signs the batch with `signer`, checks that clients can verify it, stores
 * the envelope, and withdraws the epochs it names. If any step fails, nothing is published.
 *
 * **Dated forward only.** The batch's `issuedAt` is the later of the clock and the previous batch's
 * `issuedAt`, assigned by the same upsert that bumps the head: along the feed `issuedAt` never
 * decreases (clients refuse a batch dated before the last one they applied, which is what stops the
 * key of an expired epoch from signing a back-dated batch that a client would accept).
 *
 * **Only verifiable batches are published.** The signer's `kid` must name a stored epoch that is
 * active, global (no product scope) and valid at the batch's `issuedAt`, and the signed envelope must
 * verify with that epoch's stored public key (`verifyArtifact`, as a client would); otherwise
 * `invalid_signer`, and the head does not move.
 *
 * **Revoking epochs.** Naming epoch ids in a batch is how an epoch is revoked: in the same transaction
 * the named `active` epochs become `revoked` (`revoked_at` set), so no instance signs with them after
 * its next keyset refresh (at once where instances listen for change notices), their sealed private
 * keys are wiped by the database in the same statement (migration 012), and the named `pending` ones
 * are deleted (never certified here, they can never be activated). Revoked epochs' certificates stay in the keyset (`buildKeyset`), so the batches they
 * signed before stay verifiable; clients learn of the revocation from this batch. A batch may revoke the
 * epoch that signs it (it was signed before the revocation took effect).
 *
 * The revoke routes call it; refresh the keyset afterwards, since the keyset carries the revocation epoch.
 *
 * @param sql - A database with `licenseMigrations` applied.
 * @param signer - A **global** epoch's signer (see `pickSigningEpoch` without `productId`).
 * @param input - License, machine and epoch ids (deduplicated and sorted here).
 * @param options - Clock for `issuedAt`, signature verifier.
 * @returns The published batch.
 * @throws {@link TrustChainError} `invalid_batch` for no ids, too many or malformed ids; `invalid_signer`
 *   for a signer clients could not verify.
 *
 * @example
 * ```ts
 * import { publishRevocationBatch, pickSigningEpoch } from '@tollgate/core/license';
 * const { signer } = pickSigningEpoch(epochs, { now });
 * const { seq } = await publishRevocationBatch(sql, signer, { licenseIds: [licenseId] });
 * ```
 */
export async function publishRevocationBatch(
  sql: SqlClient,
  signer: Signer,
  input: RevocationBatchInput,
  options: PublishRevocationBatchOptions = {},
): Promise<PublishedRevocationBatch> {
  const licenseIds = normalizeIds(input.licenseIds, licenseWireLengths.licenseId, 'license id');
  const machineIds = normalizeIds(input.machineIds, licenseWireLengths.machineId, 'machine id');
  const epochIds = normalizeIds(input.epochIds, licenseWireLengths.epochId, 'epoch id');
  const total = licenseIds.length + machineIds.length + epochIds.length;
  if (total === 0 || total > maxRevocationBatchIds) {
    throw new TrustChainError('invalid_batch', `A revocation batch holds 1 to ${maxRevocationBatchIds} ids.`, { details: { ids: total } });
  }
  const clock = options.clock ?? systemClock;
  return sql.transaction(async (tx) => {
    // One upsert bumps `seq` and dates the batch no earlier than the previous one (migration 012 refuses
    // any other change): `issuedAt` never goes backwards along the feed, whatever this instance's clock
    // says, so clients can refuse a batch dated before the last one they applied.
    const { rows } = await tx.query<{ seq: string; issued_at: string }>(
      `INSERT INTO license_revocation_head AS head (singleton, seq, issued_at) VALUES (true, 1, $1)
       ON CONFLICT (singleton) DO UPDATE SET seq = head.seq + 1, issued_at = GREATEST(head.issued_at, EXCLUDED.issued_at)
       RETURNING seq, issued_at`,
      [unixSeconds(clock)],
    );
    const head = rows[0] as { seq: string; issued_at: string };
    const seq = Number(head.seq);
    const issuedAt = Number(head.issued_at);
    const epoch = await loadBatchSigningEpoch(tx, signer, issuedAt);
    const batch: RevocationBatch = { protoVersion: 1, seq, issuedAt, licenseIds, machineIds, epochIds };
    const envelope = await signArtifact('revocation-batch', batch, { signer });
    try {
      verifyArtifact(envelope, 'revocation-batch', { keys: { epochs: new Map([[epoch.epochIdHex, epoch]]) }, now: issuedAt, ...(options.verify ? { verify: options.verify } : {}) });
    } catch (error) {
      if (!isArtifactError(error)) throw error;
      throw new TrustChainError('invalid_signer', `The batch signed as epoch ${epoch.epochIdHex} does not verify with its stored public key (${error.reason}).`, {
        details: { epochId: epoch.epochIdHex, problem: 'signature' },
        cause: error,
      });
    }
    const publishedAt = new Date(clock.now());
    await tx.query('INSERT INTO license_revocation_batches (seq, envelope, published_at) VALUES ($1, $2, $3)', [seq, envelope, publishedAt]);
    for (const epochId of epochIds) {
      await tx.query(`UPDATE license_epochs SET status = 'revoked', revoked_at = $2 WHERE epoch_id = $1 AND status = 'active'`, [epochId, publishedAt]);
      await tx.query(`DELETE FROM license_epochs WHERE epoch_id = $1 AND status = 'pending'`, [epochId]);
    }
    return { seq, envelope, batch };
  });
}

/**
 * The feed head: the latest published sequence number (0 before the first batch).
 *
 * @param sql - The database.
 * @returns The revocation epoch.
 *
 * @example
 * ```ts
 * import { readRevocationHead } from '@tollgate/core/license';
 * const revocationEpoch = await readRevocationHead(sql);
 * ```
 */
export async function readRevocationHead(sql: SqlClient): Promise<number> {
  const { rows } = await sql.query<{ seq: string }>('SELECT seq FROM license_revocation_head WHERE singleton');
  return rows[0] === undefined ? 0 : Number(rows[0].seq);
}

/** One answer of the feed: which range, whether it is final, and the envelopes in order. */
export interface RevocationPage extends RevocationPageRange {
  readonly envelopes: readonly Uint8Array[];
}

/**
 * Reads the page that answers `since` (see `revocationPageRange`): `undefined` when nothing is newer.
 *
 * @param sql - The database.
 * @param since - The client's revocation epoch.
 * @returns The page.
 *
 * @example
 * ```ts
 * import { readRevocationPage } from '@tollgate/core/license';
 * const page = await readRevocationPage(sql, 0n);
 * ```
 */
export async function readRevocationPage(sql: SqlClient, since: bigint): Promise<RevocationPage | undefined> {
  // The head is bumped in the same transaction as the insert, so every seq up to it is committed.
  const range = revocationPageRange(since, await readRevocationHead(sql));
  if (range === undefined) return undefined;
  const { rows } = await sql.query<{ seq: string; envelope: Uint8Array }>(
    'SELECT seq, envelope FROM license_revocation_batches WHERE seq BETWEEN $1 AND $2 ORDER BY seq',
    [range.first, range.last],
  );
  if (rows.length !== range.last - range.first + 1) throw new Error(`The revocation feed misses batches between ${range.first} and ${range.last}.`);
  return { ...range, envelopes: rows.map((row) => row.envelope) };
}
