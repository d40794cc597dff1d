/**
 * Resource limits the strict decoder enforces before it allocates anything, so that a hostile input can
 * cost at most time and memory proportional to its own (bounded) size.
 */
export interface DecodeLimits {
  /** Largest accepted input, in bytes. */
  readonly maxInputBytes: number;
  /**
   * Deepest accepted nesting: every array, map and tag opens one level, so a top-level array of
   * integers has depth 1. Also bounds the decoder's recursion; at most {@link maxCborDepth}.
   */
  readonly maxDepth: number;
  /** Longest accepted byte or text string, in bytes. */
  readonly maxStringBytes: number;
  /** Most elements in one array, or key/value pairs in one map. */
  readonly maxContainerLength: number;
  /** Most data items in the whole input: every key, value, element, container and tag content counts. */
  readonly maxTotalItems: number;
}

/**
 * The hard ceiling for `DecodeLimits.maxDepth` and `EncodeOptions.maxDepth`: it keeps the codec's recursion
 * far below the JS stack size, so no input or value can overflow the stack.
 */
export const maxCborDepth = 256;

/**
 * Limits for a license client request or response body (16 KiB): depth 16, 1,024 entries per container,
 * 4,096 items overall, strings up to the whole body. The default of `decodeCanonical`.
 *
 * @example
 * ```ts
 * import { decodeCanonical, clientDecodeLimits } from '@tollgate/core/cbor';
 * decodeCanonical(body, { limits: { ...clientDecodeLimits, maxDepth: 8 } });
 * ```
 */
export const clientDecodeLimits: DecodeLimits = Object.freeze({
  maxInputBytes: 16 * 1024,
  maxDepth: 16,
  maxStringBytes: 16 * 1024,
  maxContainerLength: 1024,
  maxTotalItems: 4096,
});

/**
 * Limits for bulk documents fetched by the client (keysets, revocation batches): 8 MiB input, depth 16,
 * 65,536 entries per container, 2^20 items overall, 1 MiB strings.
 *
 * @example
 * ```ts
 * import { decodeCanonical, bulkDecodeLimits } from '@tollgate/core/cbor';
 * const keyset = decodeCanonical(responseBytes, { limits: bulkDecodeLimits });
 * ```
 */
export const bulkDecodeLimits: DecodeLimits = Object.freeze({
  maxInputBytes: 8 * 1024 * 1024,
  maxDepth: 16,
  maxStringBytes: 1024 * 1024,
  maxContainerLength: 65_536,
  maxTotalItems: 1_048_576,
});

/**
 * Merges partial limits over the client defaults and checks them. Bad limits are a programming error, not
 * a bad input, so they throw `RangeError` (which surfaces as a 500, not as a client's malformed body).
 */
export function resolveDecodeLimits(limits: Partial<DecodeLimits> | undefined): DecodeLimits {
  if (limits === undefined || limits === clientDecodeLimits) return clientDecodeLimits;
  const resolved = { ...clientDecodeLimits, ...limits };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new RangeError(`CBOR decode limit ${name} must be a non-negative safe integer.`);
    }
  }
  if (resolved.maxDepth > maxCborDepth) {
    throw new RangeError(`CBOR decode limit maxDepth must be at most ${maxCborDepth}.`);
  }
  return resolved;
}
