import { GatewayError } from '../../errors/gateway';
import type { GatewayNetwork, NetworkRegistry } from '../networks';
import type { EvidenceChainClient, EvidenceOptions } from './evidence-settings';

/** A network the evidence routes can read, with its client. */
export interface QueryableNetwork {
  readonly network: GatewayNetwork;
  readonly client: EvidenceChainClient;
}

/** Which chain a `/tx` or `/txs` request reads. */
export interface EvidenceNetworks {
  /**
   * The network called `name`, or, without one, the default: the first network of the registry (defaults
   * first, then configured extras) that has a chain client.
   *
   * @throws GatewayError `invalid_request` (`details.field: 'network'`) for an unknown network or one
   *   without a chain client (`details.queryable` lists those with one); `rpc_unavailable` when no network has one.
   */
  resolve(name: string | undefined): QueryableNetwork;
  /** The client of a registry network, when it has one. */
  clientOf(network: GatewayNetwork): EvidenceChainClient | undefined;
}

/**
 * Builds the network resolution of the evidence routes.
 *
 * @param registry - The gateway's networks.
 * @param chain - The chain client of a network.
 * @returns The resolver.
 * @example
 * ```ts
 * import { createEvidenceNetworks } from '@tollgate/core/gateway';
 * const networks = createEvidenceNetworks(registry, (network) => rpc.forNetwork(network.name));
 * networks.resolve(undefined).network.name; // 'base' when base has an RPC
 * ```
 */
export function createEvidenceNetworks(registry: NetworkRegistry, chain: EvidenceOptions['chain']): EvidenceNetworks {
  const queryable = () => registry.networks.filter((network) => chain(network) !== undefined).map((network) => network.name);
  return {
    resolve(name) {
      if (name === undefined) {
        for (const network of registry.networks) {
          const client = chain(network);
          if (client !== undefined) return { network, client };
        }
        throw new GatewayError('rpc_unavailable', 'No network of this gateway has a chain RPC configured.', { details: { reason: 'no_rpc' }, retryAfterSeconds: 60 });
      }
      const network = registry.require(name, 'network');
      const client = chain(network);
      if (client === undefined) {
        throw new GatewayError('invalid_request', `Network "${network.name}" has no chain RPC on this gateway.`, { details: { field: 'network', queryable: queryable() } });
      }
      return { network, client };
    },
    clientOf: (network) => chain(network),
  };
}
