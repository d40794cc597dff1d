import { hmacSha256 } from '../../crypto/hash';
import { utf8Encode } from '../../crypto/utf8';
import { GatewayError } from '../../errors/gateway';
import { sealedCursor } from '../sealed-cursor';

/**
 * Where a transfer-history walk stands: the query it answers (network, filters, the block range fixed
 * by its first page) and the next position, newest first. The next page reads blocks `≤ block`, and in
 * `block` itself only logs with an index `< beforeLogIndex` (all of them when it is `null`).
 */
export interface HistoryCursorState {
  /** Network name. */
  readonly network: string;
  /** `pay_to` filter, checksummed, or `null`. */
  readonly payTo: string | null;
  /** `from` filter, checksummed, or `null`. */
  readonly from: string | null;
  /** The query's `from_block`: the walk ends below it. */
  readonly fromBlock: number;
  /** The head when the first page was read: later blocks never enter this walk, so pages are stable. */
  readonly toBlock: number;
  readonly block: number;
  readonly beforeLogIndex: number | null;
  /** The page size in force: a client following `nextCursor` without `limit` keeps it. */
  readonly limit: number;
}

const historyCursors = sealedCursor('tollgate/tx-history-cursor/v1', 1200);
const keyLabel = utf8Encode('tollgate/gateway/tx-history-cursor/v1');
const addressOrNull = (value: unknown) => value === null || (typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value));
const blockNumber = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/**
 * The MAC key of history cursors, derived from the gateway's cursor key (`GatewayKeys.cursor`) under its
 * own label, so a ref-list cursor can never be replayed as a history cursor or the other way round.
 *
 * @param cursorKey - `GatewayKeys.cursor`.
 * @returns A 32-byte key.
 * @example
 * ```ts
 * import { historyCursorKey } from '@tollgate/core/gateway';
 * const key = historyCursorKey(keys.cursor);
 * ```
 */
export function historyCursorKey(cursorKey: Uint8Array): Uint8Array {
  return hmacSha256(cursorKey, keyLabel);
}

/**
 * The refusal of a cursor this gateway did not issue unchanged.
 *
 * @returns `invalid_request` naming the `cursor` field.
 * @example
 * ```ts
 * import { invalidHistoryCursor } from '@tollgate/core/gateway';
 * throw invalidHistoryCursor();
 * ```
 */
export function invalidHistoryCursor(): GatewayError {
  return new GatewayError('invalid_request', 'The cursor is not valid: pass nextCursor unchanged, with the same filters or none.', { details: { field: 'cursor' } });
}

/**
 * Encodes a walk's state as an opaque, tamper-proof cursor: `base64url(payload) "." base64url(tag)`, the
 * payload JSON `{ v: 1, n, p, f, lo, hi, b, i, l }` and the tag HMAC-SHA-256 under {@link historyCursorKey}.
 *
 * @param key - From {@link historyCursorKey}.
 * @param state - The walk's state.
 * @returns The cursor.
 * @example
 * ```ts
 * import { encodeHistoryCursor, historyCursorKey } from '@tollgate/core/gateway';
 * const nextCursor = encodeHistoryCursor(historyCursorKey(keys.cursor), { network: 'base', payTo, from: null, fromBlock: 0, toBlock: 900, block: 412, beforeLogIndex: 3, limit: 50 });
 * ```
 */
export function encodeHistoryCursor(key: Uint8Array, state: HistoryCursorState): string {
  return historyCursors.seal(key, { v: 1, n: state.network, p: state.payTo, f: state.from, lo: state.fromBlock, hi: state.toBlock, b: state.block, i: state.beforeLogIndex, l: state.limit });
}

/**
 * Decodes a cursor made by {@link encodeHistoryCursor} with the same key. Any changed character, another
 * key, or a payload that is not a walk state is refused.
 *
 * @param key - From {@link historyCursorKey}.
 * @param cursor - The cursor as received.
 * @returns The walk's state.
 * @throws GatewayError `invalid_request` (`details.field: 'cursor'`).
 * @example
 * ```ts
 * import { decodeHistoryCursor, historyCursorKey } from '@tollgate/core/gateway';
 * const state = decodeHistoryCursor(historyCursorKey(keys.cursor), query.cursor);
 * ```
 */
export function decodeHistoryCursor(key: Uint8Array, cursor: string): HistoryCursorState {
  const fields = historyCursors.open(key, cursor) as Record<string, unknown> | null | undefined;
  const { v, n, p, f, lo, hi, b, i, l } = fields ?? {};
  if (v !== 1 || typeof n !== 'string' || !addressOrNull(p) || !addressOrNull(f) || !blockNumber(lo) || !blockNumber(hi) || !blockNumber(b)) throw invalidHistoryCursor();
  if (!(i === null || blockNumber(i)) || !blockNumber(l) || l < 1 || b < lo || b > hi) throw invalidHistoryCursor();
  return { network: n, payTo: p as string | null, from: f as string | null, fromBlock: lo, toBlock: hi, block: b, beforeLogIndex: i as number | null, limit: l };
}
