import type { SettlementChainClient } from './payment-deps';

/**
 * Starts reading the chain's head block number and returns a getter of what is known so far: the
 * number as decimal text once the read is in, `null` before that, when it failed, or without a client.
 * It never throws and never makes the caller wait: settlement starts it alongside the facilitator's
 * verify and keeps whatever it knows when it marks settle as started, so the evidence search of a
 * pending payment can start near its settlement instead of at block 0. A viem client answers from its
 * block-number cache (`cacheTime`, 4 s by default), so under load this is at most one `eth_blockNumber`
 * per network and cache period; a cached head is older, which only widens the search.
 *
 * @param client - The network's chain client, when one is configured.
 * @returns The getter.
 *
 * @example
 * ```ts
 * import { watchHeadBlock } from '@tollgate/core';
 * const headBlock = watchHeadBlock(rpc.forNetwork('base'));
 * await facilitator.verify(payload, requirements);
 * headBlock(); // '31415926', or null when the node has not answered yet
 * ```
 */
export function watchHeadBlock(client: Pick<SettlementChainClient, 'getBlockNumber'> | undefined): () => string | null {
  let head: string | null = null;
  if (client !== undefined) {
    try {
      client.getBlockNumber().then(
        (number) => {
          head = number.toString();
        },
        () => undefined,
      );
    } catch {
      // A client that throws instead of rejecting: no head known, as when the read fails.
    }
  }
  return () => head;
}
