import type { PublicClient } from 'viem';
import { chainRead } from './errors';

/** The reads {@link firstBlockAfter} and {@link lastBlockBefore} make; any viem `PublicClient` satisfies it. */
export type BlockTimeClient = Pick<PublicClient, 'getBlock'>;

/** A block's number and timestamp (unix seconds), as `getBlock` returns them. */
export interface BlockStamp {
  readonly number: bigint;
  readonly timestamp: bigint;
}

/** Most block reads one search makes: a binary search over 2^62 blocks needs 62. */
const maxReads = 64;

async function timestampOf(client: BlockTimeClient, number: bigint, timeoutMs: number): Promise<bigint> {
  const block = await chainRead('eth_getBlockByNumber', timeoutMs, () => client.getBlock({ blockNumber: number }));
  return block.timestamp;
}

/**
 * The lowest block whose timestamp is strictly after `time`, searched at or below `head`: where an
 * EIP-3009 authorization with `validAfter = time` can first execute (the token requires
 * `block.timestamp > validAfter`). Timestamps never decrease along a chain, so a binary search finds it
 * in at most log2(head) reads (each with its own deadline).
 *
 * @param client - The chain client.
 * @param time - Unix seconds.
 * @param head - The head block every answer is bounded by (read it once and pass it to every call).
 * @param timeoutMs - Deadline per read.
 * @returns The block number, or `head.number + 1` when even the head is not after `time`.
 * @throws ChainReadError when a read fails or times out.
 *
 * @example
 * ```ts
 * import { firstBlockAfter } from '@tollgate/core/chain';
 * const head = await client.getBlock({ blockTag: 'latest' });
 * const low = await firstBlockAfter(client, BigInt(authorization.validAfter), head, 10_000);
 * ```
 */
export async function firstBlockAfter(client: BlockTimeClient, time: bigint, head: BlockStamp, timeoutMs: number): Promise<bigint> {
  if (head.timestamp <= time) return head.number + 1n;
  // Invariant: the answer lies in [low, high]; `high` is after `time`.
  let low = 0n;
  let high = head.number;
  for (let reads = 0; low < high && reads < maxReads; reads++) {
    const middle = (low + high) / 2n;
    if ((await timestampOf(client, middle, timeoutMs)) > time) high = middle;
    else low = middle + 1n;
  }
  return high;
}

/**
 * The highest block whose timestamp is strictly before `time`, at or below `head`: the last block in
 * which an authorization with `validBefore = time` can execute (`block.timestamp < validBefore`).
 *
 * @param client - The chain client.
 * @param time - Unix seconds.
 * @param head - The head block.
 * @param timeoutMs - Deadline per read.
 * @returns The block number, or `-1n` when no block is before `time`.
 * @throws ChainReadError when a read fails or times out.
 *
 * @example
 * ```ts
 * import { lastBlockBefore } from '@tollgate/core/chain';
 * const high = await lastBlockBefore(client, BigInt(authorization.validBefore), head, 10_000);
 * ```
 */
export async function lastBlockBefore(client: BlockTimeClient, time: bigint, head: BlockStamp, timeoutMs: number): Promise<bigint> {
  if (head.timestamp < time) return head.number;
  // The lowest block at or after `time`, minus one; the same search with `time - 1`.
  return (await firstBlockAfter(client, time - 1n, head, timeoutMs)) - 1n;
}
