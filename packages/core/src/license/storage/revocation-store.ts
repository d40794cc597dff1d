import type { Signer } from '../../crypto';
import type { SqlClient } from '../../storage/sql-client';
import { systemClock, unixSeconds, type Clock } from '../../time/clock';
import type { RevocationBatch } from '../payloads/revocation-batch';
import { licenseWireLengths, maxRevocationBatchIds } from '../protocol';
import { revocationPageRange, type RevocationPageRange } from '../revocation-feed-format';
import { compareBytes } from '../schemas';
import { signArtifact } from '../sign-artifact';
import { TrustChainError } from '../trust-chain-error';

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

/**
 * Publishes one revocation batch atomically: in one transaction it bumps the feed head
 * (`seq = head + 1`, an upsert whose row lock serialises concurrent publishers, so sequence numbers
 * never fork and never skip), signs the batch with `signer`, and stores the envelope. If signing or
 * storing fails, nothing is published. The revoke routes call it; refresh the keyset afterwards, since
 * the keyset carries the revocation epoch.
 *
 * @param sql - A database with `licenseMigrations` applied.
 * @param signer - A **global** epoch's signer (see `pickSigningEpoch` without `productId`).
 * @param input - License, machine and epoch ids (deduplicated and sorted here).
 * @param options - Clock for `issuedAt`.
 * @returns The published batch.
 * @throws {@link TrustChainError} `invalid_batch` for no ids, too many or malformed ids.
 *
 * @example
 * ```ts
 * import { publishRevocationBatch, pickSigningEpoch } from '@tollgate/core';
 * const { signer } = pickSigningEpoch(epochs, { now });
 * const { seq } = await publishRevocationBatch(sql, signer, { licenseIds: [licenseId] });
 * ```
 */
export async function publishRevocationBatch(
  sql: SqlClient,
  signer: Signer,
  input: RevocationBatchInput,
  options: { clock?: Clock } = {},
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
    const { rows } = await tx.query<{ seq: string }>(
      `INSERT INTO license_revocation_head AS head (singleton, seq) VALUES (true, 1)
       ON CONFLICT (singleton) DO UPDATE SET seq = head.seq + 1 RETURNING seq`,
    );
    const seq = Number((rows[0] as { seq: string }).seq);
    const batch: RevocationBatch = { protoVersion: 1, seq, issuedAt: unixSeconds(clock), licenseIds, machineIds, epochIds };
    const envelope = await signArtifact('revocation-batch', batch, { signer });
    await tx.query('INSERT INTO license_revocation_batches (seq, envelope, published_at) VALUES ($1, $2, $3)', [seq, envelope, new Date(clock.now())]);
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
 * import { readRevocationHead } from '@tollgate/core';
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
 * import { readRevocationPage } from '@tollgate/core';
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
