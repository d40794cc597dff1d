import { ArtifactError } from './artifact-error';
import { revocationPageSize } from './protocol';

/** The largest u64, the bound of `since`. */
const maxU64 = (1n << 64n) - 1n;

/**
 * Parses the `since` query parameter of `GET /v1/revocations`: a decimal u64 without sign, spaces or
 * leading zeros (`0`, `17`; not `017`, `+1`, `1e3`, or anything above 2^64 − 1).
 *
 * @param text - The raw query value.
 * @returns The value, or `undefined` when malformed.
 *
 * @example
 * ```ts
 * import { parseRevocationSince } from '@tollgate/core/license';
 * parseRevocationSince('42'); // 42n
 * parseRevocationSince('042'); // undefined
 * ```
 */
export function parseRevocationSince(text: string | undefined): bigint | undefined {
  if (typeof text !== 'string' || !/^(0|[1-9][0-9]{0,19})$/.test(text)) return undefined;
  const value = BigInt(text);
  return value <= maxU64 ? value : undefined;
}

/** Which batches answer `since`, and whether that answer can never change. */
export interface RevocationPageRange {
  /** First batch sequence number (`since + 1`). */
  readonly first: number;
  /** Last batch sequence number included. */
  readonly last: number;
  /** True when the page is full: the same `since` will always get exactly these batches. */
  readonly complete: boolean;
}

/**
 * The paging rule of the revocation feed. Pages are aligned on multiples of {@link revocationPageSize}
 * (64): the answer to `since = N` holds batches `N+1 … min(head, P)` where `P` is the first multiple of
 * 64 above `N`. When `head ≥ P` the answer is complete and immutable (cacheable forever); otherwise it is
 * partial (not cacheable). Up to date (`N ≥ head`): no page.
 *
 * @param since - The client's revocation epoch.
 * @param head - The server's latest published sequence number.
 * @returns The range, or `undefined` when there is nothing newer.
 *
 * @example
 * ```ts
 * import { revocationPageRange } from '@tollgate/core/license';
 * revocationPageRange(0n, 100); // { first: 1, last: 64, complete: true }
 * revocationPageRange(64n, 100); // { first: 65, last: 100, complete: false }
 * ```
 */
export function revocationPageRange(since: bigint, head: number): RevocationPageRange | undefined {
  if (since >= BigInt(head)) return undefined;
  const start = Number(since);
  const pageEnd = (Math.floor(start / revocationPageSize) + 1) * revocationPageSize;
  return { first: start + 1, last: Math.min(head, pageEnd), complete: head >= pageEnd };
}

/**
 * Frames items as a CBOR sequence (RFC 8742): the encoded items back to back, no outer container.
 *
 * @param items - Encoded CBOR items.
 * @returns The sequence bytes.
 *
 * @example
 * ```ts
 * import { encodeCborSequence } from '@tollgate/core/license';
 * const body = encodeCborSequence(batchEnvelopes);
 * ```
 */
export function encodeCborSequence(items: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(items.reduce((total, item) => total + item.length, 0));
  let offset = 0;
  for (const item of items) {
    out.set(item, offset);
    offset += item.length;
  }
  return out;
}

function malformed(message: string, offset: number): ArtifactError {
  return new ArtifactError('bad_encoding', `CBOR sequence: ${message}.`, { details: { part: 'sequence', offset } });
}

/** Reads the argument of the head at `offset`; returns [argument, headLength]. Definite lengths only. */
function readHead(bytes: Uint8Array, offset: number): [number, number] {
  const initial = bytes[offset];
  if (initial === undefined) throw malformed('truncated item', offset);
  const info = initial & 0x1f;
  if (info < 24) return [info, 1];
  const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
  if (size === 0) throw malformed('indefinite or reserved length', offset);
  if (offset + 1 + size > bytes.length) throw malformed('truncated head', offset);
  let value = 0;
  for (let index = 1; index <= size; index += 1) value = value * 256 + (bytes[offset + index] as number);
  if (!Number.isSafeInteger(value)) throw malformed('length too large', offset);
  return [value, 1 + size];
}

/** Returns the offset just after the item starting at `offset` (structure only; contents are checked later). */
function skipItem(bytes: Uint8Array, offset: number, depth: number): number {
  if (depth > 16) throw malformed('nesting too deep', offset);
  const major = (bytes[offset] ?? 0) >> 5;
  const [argument, headLength] = readHead(bytes, offset);
  let next = offset + headLength;
  if (major === 2 || major === 3) next += argument;
  else if (major === 4 || major === 5) {
    const children = major === 4 ? argument : argument * 2;
    if (children > bytes.length - next) throw malformed('container longer than input', offset);
    for (let child = 0; child < children; child += 1) next = skipItem(bytes, next, depth + 1);
  } else if (major === 6) throw malformed('tags are not allowed', offset);
  if (next > bytes.length) throw malformed('truncated item', offset);
  return next;
}

/**
 * Splits a CBOR sequence into its encoded items (structure only: decode each item strictly afterwards,
 * e.g. with `verifyArtifact`). Refuses indefinite lengths, tags, truncation and more than `maxItems`.
 *
 * @param bytes - The sequence.
 * @param maxItems - Most items accepted (default: one revocation page).
 * @returns The items' bytes, in order.
 * @throws {@link ArtifactError} `bad_encoding`.
 *
 * @example
 * ```ts
 * import { splitCborSequence } from '@tollgate/core/license';
 * for (const envelope of splitCborSequence(body)) handle(envelope);
 * ```
 */
export function splitCborSequence(bytes: Uint8Array, maxItems: number = revocationPageSize): Uint8Array[] {
  if (!(bytes instanceof Uint8Array)) throw malformed('input must be bytes', 0);
  const items: Uint8Array[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    if (items.length === maxItems) throw malformed(`more than ${maxItems} items`, offset);
    const end = skipItem(bytes, offset, 0);
    items.push(bytes.slice(offset, end));
    offset = end;
  }
  return items;
}
