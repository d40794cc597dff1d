import { getAddress, type Address } from 'viem';

/** The USDC token of a network: contract address and the EIP-712 domain EIP-3009 signatures use. */
export interface UsdcToken {
  /** Token contract (EIP-55 checksummed). */
  readonly address: Address;
  /** EIP-712 domain `name` (`USD Coin` on Base, `USDC` on Base Sepolia: a wrong name breaks every signature). */
  readonly name: string;
  /** EIP-712 domain `version`. */
  readonly version: string;
  /** Token decimals (6 for USDC). */
  readonly decimals: number;
}

/**
 * One EVM network the gateway accepts, as the API names it and as the x402 wire names it: the one network
 * type. The gateway's registry (`createNetworkRegistry`) builds and checks them; the x402 building blocks
 * (requirements, EIP-3009 digests, offers, receipts, payment verification) take them as they are, reading
 * `caip2`, `chainId` and `usdc` only.
 *
 * @example
 * ```ts
 * import type { GatewayNetwork } from '@tollgate/core';
 * const base: GatewayNetwork = {
 *   name: 'base', caip2: 'eip155:8453', chainId: 8453,
 *   usdc: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2', decimals: 6 },
 * };
 * ```
 */
export interface GatewayNetwork {
  /** The name the API takes (`base`, `base-sepolia`, `local`). */
  readonly name: string;
  /** CAIP-2 id used on the x402 wire (`eip155:8453`). */
  readonly caip2: `eip155:${number}`;
  /** EIP-155 chain id. */
  readonly chainId: number;
  readonly usdc: UsdcToken;
}

/** The facts of a {@link GatewayNetwork} the x402 building blocks read. */
type X402Facts = Pick<GatewayNetwork, 'caip2' | 'chainId' | 'usdc'>;

const checkedNetworks = new WeakMap<object, X402Facts>();

/**
 * Validates a network's x402 facts once per object (memoised, so the hot path pays nothing): the CAIP-2
 * id must be `eip155:<chainId>`, the chain id a positive safe integer, the USDC address an address, its
 * EIP-712 name and version non-empty. The registry calls it for each network when it is built, so its
 * networks are never checked again; a network built by hand is checked on first use. Caller mistakes, so
 * they throw `TypeError`.
 *
 * @param network - The network.
 * @returns The network itself when it is frozen and its address checksummed (every registry network),
 *   else a frozen copy with the address checksummed.
 * @throws TypeError when the facts are inconsistent.
 */
export function checkNetwork<Facts extends X402Facts>(network: Facts): Facts {
  const cached = checkedNetworks.get(network);
  if (cached) return cached as Facts;
  if (!Number.isSafeInteger(network.chainId) || network.chainId <= 0) throw new TypeError(`chainId must be a positive integer, got ${String(network.chainId)}.`);
  if (network.caip2 !== `eip155:${network.chainId}`) throw new TypeError(`caip2 ${String(network.caip2)} does not name chain ${network.chainId}.`);
  const usdc = network.usdc as UsdcToken | undefined;
  if (!usdc || typeof usdc.name !== 'string' || usdc.name === '' || typeof usdc.version !== 'string' || usdc.version === '') {
    throw new TypeError('usdc must carry the token domain name and version.');
  }
  const address = checksum(usdc.address, 'usdc.address');
  const unchanged = address === usdc.address && Object.isFrozen(network) && Object.isFrozen(usdc);
  const checked = unchanged ? network : Object.freeze({ ...network, usdc: Object.freeze({ ...usdc, address }) });
  checkedNetworks.set(network, checked);
  checkedNetworks.set(checked, checked);
  return checked;
}

/**
 * Checksums an address given by the caller (configuration, a ref), throwing `TypeError` when it is not one.
 *
 * @param address - A 20-byte hex address in any case.
 * @param name - The parameter's name, for the message.
 * @returns The EIP-55 checksummed address.
 */
export function checksum(address: string, name: string): Address {
  if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) throw new TypeError(`${name} is not an address: ${String(address)}.`);
  return getAddress(address);
}
