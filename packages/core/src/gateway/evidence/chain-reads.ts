import { hexToBigInt, toHex, type Address, type Hash, type Hex } from 'viem';
import { chainRead } from '../../chain/errors';
import type { EvidenceChainClient } from './evidence-settings';

/** A log as JSON-RPC returns it (hex quantities). */
export interface RawLog {
  readonly address: Address;
  readonly topics: readonly Hex[];
  readonly data: Hex;
  readonly blockNumber: Hex | null;
  readonly blockHash: Hash | null;
  readonly transactionHash: Hash | null;
  readonly logIndex: Hex | null;
  readonly removed?: boolean;
}

/** The parts of a transaction receipt the evidence routes read. */
export interface RawReceipt {
  /** `0x1` success, `0x0` reverted. */
  readonly status: Hex | null;
  readonly blockNumber: Hex;
  readonly blockHash: Hash;
  readonly logs: readonly RawLog[];
}

/** A log filter of `eth_getLogs`: one contract, topics by position (`null` = any). */
export interface LogFilter {
  readonly address: Address;
  readonly topics: readonly (Hex | null)[];
  readonly fromBlock: bigint;
  readonly toBlock: bigint;
}

/**
 * Raw JSON-RPC reads of one chain, each under {@link chainRead}'s deadline: a node that does not answer
 * in time, cannot be reached or refuses a call raises `ChainReadError` (`rpc_unavailable`, 503 with
 * `Retry-After`), so no evidence request ever hangs on the chain. Raw calls (not viem's actions) so no
 * cache of the client ever answers for the chain: every read is fresh.
 */
export interface ChainReads {
  /** `eth_blockNumber`. */
  head(): Promise<bigint>;
  /** `eth_getTransactionReceipt`; `null` for a hash the node has no receipt of (unknown or not mined). */
  receipt(hash: Hash): Promise<RawReceipt | null>;
  /** `eth_getTransactionByHash`: `null` when unknown, else its block number (`null` while pending). */
  transaction(hash: Hash): Promise<{ blockNumber: bigint | null } | null>;
  /** `eth_getBlockByNumber` (without transactions): the hash of the canonical block at `number`, or `null`. */
  blockHash(number: bigint): Promise<Hash | null>;
  /** `eth_getLogs`. */
  logs(filter: LogFilter): Promise<readonly RawLog[]>;
}

/**
 * The reads of `client`, each with a deadline of `timeoutMs`.
 *
 * @param client - A viem client (any `request` function of the JSON-RPC schema).
 * @param timeoutMs - Deadline of each call.
 * @returns The reads.
 * @example
 * ```ts
 * import { createChainReads } from '@tollgate/core/gateway';
 * const reads = createChainReads(publicClient, 5_000);
 * const receipt = await reads.receipt('0x…');
 * ```
 */
export function createChainReads(client: EvidenceChainClient, timeoutMs: number): ChainReads {
  return {
    async head() {
      return hexToBigInt(await chainRead('eth_blockNumber', timeoutMs, () => client.request({ method: 'eth_blockNumber' })));
    },
    async receipt(hash) {
      const receipt = await chainRead('eth_getTransactionReceipt', timeoutMs, () => client.request({ method: 'eth_getTransactionReceipt', params: [hash] }));
      if (receipt === null || receipt === undefined || receipt.blockNumber === null || receipt.blockHash === null) return null;
      return { status: receipt.status, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, logs: receipt.logs as unknown as readonly RawLog[] };
    },
    async transaction(hash) {
      const transaction = await chainRead('eth_getTransactionByHash', timeoutMs, () => client.request({ method: 'eth_getTransactionByHash', params: [hash] }));
      if (transaction === null || transaction === undefined) return null;
      return { blockNumber: transaction.blockNumber === null ? null : hexToBigInt(transaction.blockNumber) };
    },
    async blockHash(number) {
      const block = await chainRead('eth_getBlockByNumber', timeoutMs, () => client.request({ method: 'eth_getBlockByNumber', params: [toHex(number), false] }));
      return block === null || block === undefined || block.hash === null ? null : block.hash;
    },
    async logs(filter) {
      const logs = await chainRead('eth_getLogs', timeoutMs, () =>
        client.request({
          method: 'eth_getLogs',
          params: [{ address: filter.address, topics: [...filter.topics], fromBlock: toHex(filter.fromBlock), toBlock: toHex(filter.toBlock) }],
        }),
      );
      return logs as unknown as readonly RawLog[];
    },
  };
}

/** A log's position, or `undefined` when the node sent a pending log without one. */
export function logPosition(log: RawLog): { blockNumber: bigint; logIndex: number } | undefined {
  if (log.blockNumber === null || log.logIndex === null || log.removed === true) return undefined;
  return { blockNumber: hexToBigInt(log.blockNumber), logIndex: Number(hexToBigInt(log.logIndex)) };
}
