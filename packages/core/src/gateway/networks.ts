import * as v from 'valibot';
import { getAddress, isAddress } from 'viem';
import { GatewayError } from '../errors/gateway';
import { checkNetwork, type GatewayNetwork } from '../x402/network';

// The one network type lives with the x402 building blocks that take it (they sit below the gateway).
export type { GatewayNetwork, UsdcToken } from '../x402/network';

/**
 * The networks every gateway knows: Base, Base Sepolia (see research/x402.md §2 for the USDC domains)
 * and `local`, the dev chain (`eip155:31337`) whose TestUSDC the dev stack deploys at a fixed address.
 *
 * @example
 * ```ts
 * import { defaultNetworks } from '@tollgate/core';
 * defaultNetworks.map((network) => network.name); // ['base', 'base-sepolia', 'local']
 * ```
 */
export const defaultNetworks: readonly GatewayNetwork[] = Object.freeze([
  {
    name: 'base',
    caip2: 'eip155:8453',
    chainId: 8453,
    usdc: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2', decimals: 6 },
  },
  {
    name: 'base-sepolia',
    caip2: 'eip155:84532',
    chainId: 84532,
    usdc: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USDC', version: '2', decimals: 6 },
  },
  {
    name: 'local',
    caip2: 'eip155:31337',
    chainId: 31337,
    usdc: { address: '0x1415166C7d37129d18B915707E46Aa0cccD0b439', name: 'USD Coin', version: '2', decimals: 6 },
  },
]);

/** Pattern of a network name: lowercase, digits and `-`, starting with a letter, at most 32 characters. */
export const networkNamePattern = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * valibot schema of a network added by configuration (`GATEWAY_EXTRA_NETWORKS`): the CAIP-2 id is
 * derived from `chainId`, the address is checksummed, decimals default to 6.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { networkDefinitionSchema } from '@tollgate/core/gateway';
 * const network = v.parse(networkDefinitionSchema, {
 *   name: 'polygon', chainId: 137,
 *   usdc: { address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', name: 'USD Coin', version: '2' },
 * });
 * ```
 */
export const networkDefinitionSchema = v.pipe(
  v.strictObject({
    name: v.pipe(v.string(), v.regex(networkNamePattern, 'a network name is lowercase letters, digits and "-" (at most 32)')),
    chainId: v.pipe(v.number(), v.safeInteger(), v.minValue(1, 'a chain id is a positive integer')),
    usdc: v.strictObject({
      address: v.pipe(
        v.string(),
        v.check((value) => isAddress(value, { strict: false }), 'an EVM address'),
        v.transform((value) => getAddress(value)),
      ),
      name: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
      version: v.pipe(v.string(), v.minLength(1), v.maxLength(16)),
      decimals: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(36)), 6),
    }),
  }),
  v.transform((input): GatewayNetwork => ({ ...input, caip2: `eip155:${input.chainId}` })),
);

/** Looks networks up by API name, CAIP-2 id or chain id. */
export interface NetworkRegistry {
  /** Every network, defaults first, in a stable order. */
  readonly networks: readonly GatewayNetwork[];
  byName(name: string): GatewayNetwork | undefined;
  byCaip2(caip2: string): GatewayNetwork | undefined;
  byChainId(chainId: number): GatewayNetwork | undefined;
  /**
   * The network called `name`.
   *
   * @param name - The network name from a request.
   * @param field - The request field it came from, named in the error.
   * @throws GatewayError `invalid_request` listing the supported names when it is unknown.
   */
  require(name: string, field?: string): GatewayNetwork;
}

/** Options of {@link createNetworkRegistry}. */
export interface NetworkRegistryOptions {
  /** Networks to add (for example parsed with {@link networkDefinitionSchema}). Names and chain ids must be new. */
  readonly extra?: readonly GatewayNetwork[];
  /** USDC address on the `local` dev chain, when the dev token lives elsewhere than the dev stack's default. */
  readonly localUsdc?: string;
}

/**
 * A frozen copy of `network` whose x402 facts were checked (`checkNetwork` memoises the result, so the
 * x402 building blocks never check a registry network again) and whose USDC address is checksummed.
 */
function checkedCopy(network: GatewayNetwork): GatewayNetwork {
  if (!networkNamePattern.test(network.name)) throw new TypeError(`Invalid network name "${network.name}".`);
  if (network.caip2 !== `eip155:${network.chainId}`) throw new TypeError(`Network ${network.name}: CAIP-2 id must be eip155:${network.chainId}.`);
  try {
    return checkNetwork(Object.freeze({ ...network, usdc: Object.freeze({ ...network.usdc }) }));
  } catch (error) {
    throw new TypeError(`Network ${network.name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Builds the registry of networks the API accepts: {@link defaultNetworks} plus configured extras.
 *
 * @param options - Extra networks and the local USDC override.
 * @returns The registry.
 * @throws TypeError when two networks share a name, CAIP-2 id or chain id, or a network's facts are invalid
 *   (name, CAIP-2 id, chain id, USDC address, EIP-712 name or version): each is checked here, once.
 * @example
 * ```ts
 * import { createNetworkRegistry } from '@tollgate/core';
 * const networks = createNetworkRegistry({ localUsdc: '0x5FbDB2315678afecb367f032d93F642f64180aa3' });
 * networks.require('base').caip2; // 'eip155:8453'
 * networks.byChainId(31337)?.name; // 'local'
 * ```
 */
export function createNetworkRegistry(options: NetworkRegistryOptions = {}): NetworkRegistry {
  const networks = defaultNetworks.map((network) => {
    if (network.name !== 'local' || options.localUsdc === undefined) return network;
    if (!isAddress(options.localUsdc, { strict: false })) throw new TypeError(`The local USDC address "${options.localUsdc}" is not an EVM address.`);
    return { ...network, usdc: { ...network.usdc, address: getAddress(options.localUsdc) } };
  });
  networks.push(...(options.extra ?? []));
  const frozen = Object.freeze(networks.map(checkedCopy));
  const byName = new Map<string, GatewayNetwork>();
  const byCaip2 = new Map<string, GatewayNetwork>();
  const byChainId = new Map<number, GatewayNetwork>();
  for (const network of frozen) {
    if (byName.has(network.name)) throw new TypeError(`Network "${network.name}" is defined twice.`);
    if (byChainId.has(network.chainId)) {
      throw new TypeError(`Networks "${byChainId.get(network.chainId)?.name}" and "${network.name}" share chain id ${network.chainId}.`);
    }
    byName.set(network.name, network);
    byCaip2.set(network.caip2, network);
    byChainId.set(network.chainId, network);
  }
  return {
    networks: frozen,
    byName: (name) => byName.get(name),
    byCaip2: (caip2) => byCaip2.get(caip2),
    byChainId: (chainId) => byChainId.get(chainId),
    require(name, field = 'network') {
      const network = byName.get(name);
      if (network) return network;
      throw new GatewayError('invalid_request', `Unknown network "${name.slice(0, 40)}". Use one of: ${[...byName.keys()].join(', ')}.`, {
        details: { field, supported: [...byName.keys()] },
      });
    },
  };
}
