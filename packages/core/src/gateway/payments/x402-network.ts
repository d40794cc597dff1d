import type { X402Network } from '../../x402/network';
import type { GatewayNetwork } from '../networks';

const adapted = new WeakMap<GatewayNetwork, X402Network>();

/**
 * The x402 view of a registry network: CAIP-2 id, chain id, the USDC contract as the asset and its
 * EIP-712 domain. The one place where the registry's shape meets the x402 building blocks; memoised
 * per network object, so the x402 helpers' own per-object validation runs once.
 *
 * @param network - A network from the gateway's registry.
 * @returns Its x402 facts.
 *
 * @example
 * ```ts
 * import { createNetworkRegistry, toX402Network, buildPaymentRequirements } from '@tollgate/core';
 * const base = toX402Network(createNetworkRegistry().require('base'));
 * const accepted = buildPaymentRequirements({ network: base, payTo, amount: '10000', maxTimeoutSeconds: 300 });
 * ```
 */
export function toX402Network(network: GatewayNetwork): X402Network {
  let x402 = adapted.get(network);
  if (x402 === undefined) {
    x402 = Object.freeze({
      caip2: network.caip2,
      chainId: network.chainId,
      asset: network.usdc.address,
      eip712: Object.freeze({ name: network.usdc.name, version: network.usdc.version }),
    });
    adapted.set(network, x402);
  }
  return x402;
}
