/** An inclusive block range for one `eth_getLogs` call. */
export interface BlockRange {
  from: bigint;
  to: bigint;
}

/**
 * Splits `[fromBlock, toBlock]` into consecutive inclusive ranges of at most `maxBlockSpan` blocks,
 * newest first (`backward`) or oldest first (`forward`). Providers cap the span of `eth_getLogs`, and a
 * backward walk finds a recent settlement without scanning old history.
 *
 * @param fromBlock - First block (inclusive), ≥ 0.
 * @param toBlock - Last block (inclusive), ≥ `fromBlock`.
 * @param maxBlockSpan - Most blocks per range, ≥ 1.
 * @param direction - `backward` (default) or `forward`.
 * @returns A lazy sequence of ranges covering the interval exactly once.
 * @throws RangeError on a negative, inverted or zero-span request.
 * @example
 * ```ts
 * import { blockRanges } from '@tollgate/core/chain';
 * [...blockRanges(0n, 9n, 4n)]; // [{from: 6n, to: 9n}, {from: 2n, to: 5n}, {from: 0n, to: 1n}]
 * ```
 */
export function* blockRanges(fromBlock: bigint, toBlock: bigint, maxBlockSpan: bigint, direction: 'backward' | 'forward' = 'backward'): Generator<BlockRange> {
  if (fromBlock < 0n) throw new RangeError(`fromBlock must be ≥ 0, got ${fromBlock}.`);
  if (toBlock < fromBlock) throw new RangeError(`toBlock (${toBlock}) is before fromBlock (${fromBlock}).`);
  if (maxBlockSpan < 1n) throw new RangeError(`maxBlockSpan must be ≥ 1, got ${maxBlockSpan}.`);
  if (direction === 'forward') {
    for (let from = fromBlock; from <= toBlock; from += maxBlockSpan) {
      const to = from + maxBlockSpan - 1n;
      yield { from, to: to < toBlock ? to : toBlock };
    }
    return;
  }
  for (let to = toBlock; to >= fromBlock; to -= maxBlockSpan) {
    const from = to - maxBlockSpan + 1n;
    yield { from: from > fromBlock ? from : fromBlock, to };
  }
}
