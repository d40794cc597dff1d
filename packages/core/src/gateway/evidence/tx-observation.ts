import type { Hash } from 'viem';
import { createBoundedCache } from '../payments/bounded-cache';
import type { GatewayNetwork } from '../networks';
import { createChainReads, type ChainReads, type RawLog } from './chain-reads';
import type { EvidenceChainClient, EvidenceSettings } from './evidence-settings';

/**
 * A transaction as the current canonical chain shows it:
 *
 * | status | meaning |
 * |---|---|
 * | `not_found` | the node knows no such transaction (never sent, dropped, or its block was reorganised away and the transaction with it) |
 * | `pending` | known but not in a canonical block: in the mempool, or its block was just replaced and it waits to be mined again |
 * | `success` | mined in a canonical block and executed |
 * | `reverted` | mined in a canonical block and reverted (no logs, no transfer) |
 *
 * `confirmations` = head − block + 1 (the head block's transactions have 1); 0 unless mined.
 */
export type TxObservation =
  | { readonly status: 'not_found'; readonly confirmations: 0 }
  | { readonly status: 'pending'; readonly confirmations: 0 }
  | {
      // (Each unmined status is a member of its own so a `===` check narrows the union.)
      readonly status: 'success' | 'reverted';
      readonly confirmations: number;
      readonly blockNumber: bigint;
      readonly blockHash: Hash;
      readonly logs: readonly RawLog[];
      /** At least `finalityConfirmations` deep: read from the cache from now on. */
      readonly final: boolean;
    };

/** Reads transactions from the canonical chain, remembering final ones. */
export interface TxObserver {
  /**
   * The transaction `hash` on `network` now.
   *
   * @throws ChainReadError (`rpc_unavailable`) when a read fails or times out.
   */
  observe(network: GatewayNetwork, client: EvidenceChainClient, hash: Hash): Promise<TxObservation>;
}

type Mined = Extract<TxObservation, { blockNumber: bigint }>;

// A final transaction's logs are cached only under this size, so the cache stays bounded in bytes too.
const maxCachedLogBytes = 32 * 1024;

/**
 * Creates the observer. A receipt alone is not trusted to be canonical: a node may still serve the
 * receipt of a block that a reorganisation replaced, so the block hash at the receipt's height is read
 * too, and a mismatch reports the transaction as `pending` (still known) or `not_found`, never mined.
 * Reads for a transaction that is not final: receipt, then head and block hash in parallel (two round
 * trips). Final transactions (see `finalityConfirmations`) are cached by network and hash (bounded,
 * least recently used out; only final facts, so nothing invalidates an entry) and cost one `eth_blockNumber`.
 *
 * @param settings - RPC deadline, finality depth and cache size.
 * @returns The observer.
 * @example
 * ```ts
 * import { createTxObserver, resolveEvidenceSettings } from '@tollgate/core/gateway';
 * const observer = createTxObserver(resolveEvidenceSettings());
 * const tx = await observer.observe(network, client, hash); // { status: 'success', confirmations: 3, … }
 * ```
 */
export function createTxObserver(settings: Pick<EvidenceSettings, 'rpcTimeoutMs' | 'finalityConfirmations' | 'cacheSize'>): TxObserver {
  const finalTxs = createBoundedCache<Mined>(settings.cacheSize);
  const readsByClient = new WeakMap<EvidenceChainClient, ChainReads>();
  const readsOf = (client: EvidenceChainClient): ChainReads => {
    let reads = readsByClient.get(client);
    if (reads === undefined) readsByClient.set(client, (reads = createChainReads(client, settings.rpcTimeoutMs)));
    return reads;
  };
  const depth = (head: bigint, blockNumber: bigint) => (head >= blockNumber ? Number(head - blockNumber + 1n) : 0);

  async function unmined(reads: ChainReads, hash: Hash): Promise<TxObservation> {
    const transaction = await reads.transaction(hash);
    return transaction === null ? { status: 'not_found', confirmations: 0 } : { status: 'pending', confirmations: 0 };
  }

  return {
    async observe(network, client, hash) {
      const reads = readsOf(client);
      const key = `${network.caip2}:${hash.toLowerCase()}`;
      const cached = finalTxs.get(key);
      if (cached !== undefined) return { ...cached, confirmations: depth(await reads.head(), cached.blockNumber) };

      const receipt = await reads.receipt(hash);
      if (receipt === null) return unmined(reads, hash);
      const blockNumber = BigInt(receipt.blockNumber);
      const [head, canonicalHash] = await Promise.all([reads.head(), reads.blockHash(blockNumber)]);
      if (canonicalHash === null || canonicalHash.toLowerCase() !== receipt.blockHash.toLowerCase() || head < blockNumber) return unmined(reads, hash);

      const confirmations = depth(head, blockNumber);
      const final = confirmations >= settings.finalityConfirmations;
      const observation: Mined = {
        status: receipt.status === '0x1' ? 'success' : 'reverted',
        confirmations,
        blockNumber,
        blockHash: receipt.blockHash,
        logs: receipt.status === '0x1' ? receipt.logs : [],
        final,
      };
      if (final && JSON.stringify(observation.logs).length <= maxCachedLogBytes) finalTxs.set(key, observation);
      return observation;
    },
  };
}
