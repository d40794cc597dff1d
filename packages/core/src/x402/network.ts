import { getAddress, type Address } from 'viem';
import type { Network } from './wire';

/**
 * The facts about one EVM network that the x402 pieces need, passed in as plain data (the gateway's
 * network registry produces it). `eip712` is the token's EIP-712 domain name and version, which differ
 * per chain for USDC (`USD Coin`/`2` on Base, `USDC`/`2` on Base Sepolia).
 *
 * @example
 * ```ts
 * import type { X402Network } from '@tollgate/core';
 * const base: X402Network = {
 *   caip2: 'eip155:8453', chainId: 8453,
 *   asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', eip712: { name: 'USD Coin', version: '2' },
 * };
 * ```
 */
export interface X402Network {
  /** CAIP-2 id, `eip155:<chainId>`. */
  caip2: Network;
  chainId: number;
  /** The EIP-3009 token contract (USDC). */
  asset: Address;
  /** The token's EIP-712 domain name and version. */
  eip712: { name: string; version: string };
}

/** A network whose addresses are checksummed and whose facts were checked for consistency. */
export type CheckedNetwork = X402Network & { readonly checked: true };

const checkedNetworks = new WeakMap<X402Network, CheckedNetwork>();

/**
 * Validates a network description once per object (memoised, so the hot path pays nothing): the CAIP-2
 * id must be `eip155:<chainId>`, the chain id a positive safe integer, the asset an address, the
 * EIP-712 name and version non-empty. Caller mistakes, so they throw `TypeError`.
 *
 * @param network - The network facts.
 * @returns The same facts with the asset checksummed.
 * @throws TypeError when the facts are inconsistent.
 */
export function checkNetwork(network: X402Network): CheckedNetwork {
  const cached = checkedNetworks.get(network);
  if (cached) return cached;
  if (!Number.isSafeInteger(network.chainId) || network.chainId <= 0) throw new TypeError(`chainId must be a positive integer, got ${String(network.chainId)}.`);
  if (network.caip2 !== `eip155:${network.chainId}`) throw new TypeError(`caip2 ${String(network.caip2)} does not name chain ${network.chainId}.`);
  if (!network.eip712 || typeof network.eip712.name !== 'string' || network.eip712.name === '' || typeof network.eip712.version !== 'string' || network.eip712.version === '') {
    throw new TypeError('eip712 must carry the token domain name and version.');
  }
  const checked: CheckedNetwork = {
    caip2: network.caip2,
    chainId: network.chainId,
    asset: checksum(network.asset, 'asset'),
    eip712: { name: network.eip712.name, version: network.eip712.version },
    checked: true,
  };
  checkedNetworks.set(network, checked);
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
