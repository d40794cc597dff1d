import { createPublicClient, defineChain, http, type Chain, type HttpTransportConfig, type PublicClient, type Transport } from 'viem';

/**
 * A viem chain definition for a local dev chain.
 *
 * @param chainId - The chain id the node reports (31337 for anvil).
 * @param rpcUrl - Its JSON-RPC endpoint.
 * @returns A chain usable with viem clients.
 * @example
 * ```ts
 * import { devChainDefinition } from '@tollgate/gateway-server/devchain';
 * const chain = devChainDefinition(31337, 'http://127.0.0.1:8545');
 * ```
 */
export function devChainDefinition(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: `Tollgate dev chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    testnet: true,
  });
}

/**
 * A viem public client tuned for a local node: short polling (anvil mines instantly, viem's 4 s default
 * would dominate every receipt wait), no retries (a local node that fails will not recover by waiting)
 * and a bounded request timeout.
 *
 * @param chain - From {@link devChainDefinition}.
 * @param rpcUrl - JSON-RPC endpoint.
 * @param options - `timeoutMs` per request (default 10 000), `pollingIntervalMs` (default 50).
 * @returns The public client.
 * @example
 * ```ts
 * import { createDevPublicClient, devChainDefinition } from '@tollgate/gateway-server/devchain';
 * const client = createDevPublicClient(devChainDefinition(31337, rpcUrl), rpcUrl);
 * console.log(await client.getBlockNumber());
 * ```
 */
export function createDevPublicClient(
  chain: Chain,
  rpcUrl: string,
  options: { timeoutMs?: number; pollingIntervalMs?: number; fetchFn?: HttpTransportConfig['fetchFn'] } = {},
): PublicClient<Transport, Chain> {
  return createPublicClient({
    chain,
    transport: devTransport(rpcUrl, options.timeoutMs, options.fetchFn),
    pollingInterval: options.pollingIntervalMs ?? 50,
  });
}

/**
 * The HTTP transport used by every dev-chain client.
 *
 * @param rpcUrl - JSON-RPC endpoint.
 * @param timeoutMs - Per-request timeout, default 10 000 ms.
 * @param fetchFn - The fetch to send requests with (the global one by default; the local facilitator
 *   passes a kept-alive `node:http` one, see `createKeepAliveFetch`).
 * @returns A viem transport.
 * @example
 * ```ts
 * import { createWalletClient } from 'viem';
 * import { devTransport } from '@tollgate/gateway-server/devchain';
 * const wallet = createWalletClient({ account, chain, transport: devTransport(rpcUrl) });
 * ```
 */
export function devTransport(rpcUrl: string, timeoutMs = 10_000, fetchFn?: HttpTransportConfig['fetchFn']): Transport {
  return http(rpcUrl, { retryCount: 0, timeout: timeoutMs, ...(fetchFn === undefined ? {} : { fetchFn }) });
}

/**
 * Reads the chain id a node reports, with a clear error when nothing answers.
 *
 * @param rpcUrl - JSON-RPC endpoint.
 * @returns The chain id.
 */
export async function readChainId(rpcUrl: string): Promise<number> {
  const client = createPublicClient({ transport: devTransport(rpcUrl, 5_000) });
  try {
    return await client.getChainId();
  } catch (cause) {
    throw new Error(`No JSON-RPC node answers at ${rpcUrl}.`, { cause });
  }
}
