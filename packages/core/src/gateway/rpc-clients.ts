import { createPublicClient, http, type HttpTransportConfig, type PublicClient } from 'viem';
import type { GatewayNetwork, NetworkRegistry } from './networks';

/** A configured network with its JSON-RPC client. */
export interface ConfiguredRpc {
  readonly network: GatewayNetwork;
  readonly client: PublicClient;
}

/** JSON-RPC clients of the networks that have an RPC URL configured. */
export interface RpcClients {
  /** The client of the network called `name`, when one is configured. */
  forNetwork(name: string): PublicClient | undefined;
  /** Every configured network, in registry order. */
  readonly configured: readonly ConfiguredRpc[];
}

/** Options of {@link createRpcClients}. */
export interface RpcClientOptions {
  /** Per-request timeout in milliseconds. Default 5 000. */
  readonly timeoutMs?: number;
  /** The fetch requests go through (the global one by default; servers pass `createKeepAliveFetch()`). */
  readonly fetch?: HttpTransportConfig['fetchFn'];
}

/**
 * Builds one viem public client per network that has an RPC URL. Requests time out and are never
 * retried: a caller maps the failure to `rpc_unavailable` at once instead of hanging a request.
 * The URLs (which often embed provider API keys) are kept inside the clients and never reported.
 *
 * @param registry - The network registry.
 * @param rpcUrls - Network name → HTTP(S) JSON-RPC URL.
 * @param options - Request timeout and fetch.
 * @returns The clients.
 * @throws TypeError when a name is not a network of the registry or a URL is not http(s).
 * @example
 * ```ts
 * import { createNetworkRegistry, createRpcClients } from '@tollgate/core';
 * const rpc = createRpcClients(createNetworkRegistry(), { local: 'http://127.0.0.1:8545' });
 * await rpc.forNetwork('local')?.getChainId(); // 31337
 * ```
 */
export function createRpcClients(registry: NetworkRegistry, rpcUrls: Readonly<Record<string, string>>, options: RpcClientOptions = {}): RpcClients {
  const timeout = options.timeoutMs ?? 5_000;
  const clients = new Map<string, PublicClient>();
  for (const [name, url] of Object.entries(rpcUrls)) {
    if (registry.byName(name) === undefined) throw new TypeError(`An RPC URL is configured for the unknown network "${name}".`);
    let protocol: string;
    try {
      protocol = new URL(url).protocol;
    } catch {
      throw new TypeError(`The RPC URL of network "${name}" is not a URL.`);
    }
    if (protocol !== 'http:' && protocol !== 'https:') throw new TypeError(`The RPC URL of network "${name}" must use http or https.`);
    clients.set(name, createPublicClient({ transport: http(url, { timeout, retryCount: 0, ...(options.fetch === undefined ? {} : { fetchFn: options.fetch }) }) }));
  }
  const configured = registry.networks.flatMap((network) => {
    const client = clients.get(network.name);
    return client ? [{ network, client }] : [];
  });
  return { forNetwork: (name) => clients.get(name), configured: Object.freeze(configured) };
}
