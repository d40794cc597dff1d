import { defineEip712Struct, eip712Digest, eip712DomainSeparator, eip712Types } from './eip712';
import { checkNetwork, type GatewayNetwork } from './network';
import type { ExactEvmAuthorization } from './wire';

/** EIP-3009 `TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)`. */
const transferWithAuthorization = defineEip712Struct('TransferWithAuthorization', [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
]);

/** The `types` of `TransferWithAuthorization` for viem's typed-data functions. */
export const transferWithAuthorizationTypes = eip712Types('TransferWithAuthorization', transferWithAuthorization);

const domainSeparators = new WeakMap<object, Uint8Array>();

/**
 * The token's EIP-712 domain on a network: `{ name, version, chainId, verifyingContract: asset }`, the
 * domain USDC checks EIP-3009 signatures under.
 *
 * @param network - The network facts.
 * @returns The domain, ready for viem's `signTypedData` / `hashTypedData`.
 *
 * @example
 * ```ts
 * import { tokenEip712Domain, transferWithAuthorizationTypes } from '@tollgate/core/x402';
 * const signature = await payer.signTypedData({ domain: tokenEip712Domain(base), types: transferWithAuthorizationTypes, primaryType: 'TransferWithAuthorization', message });
 * ```
 */
export function tokenEip712Domain(network: Pick<GatewayNetwork, 'caip2' | 'chainId' | 'usdc'>): { name: string; version: string; chainId: number; verifyingContract: `0x${string}` } {
  const checked = checkNetwork(network);
  return { name: checked.usdc.name, version: checked.usdc.version, chainId: checked.chainId, verifyingContract: checked.usdc.address };
}

/**
 * The EIP-712 digest the payer signed for an EIP-3009 authorization on `network`. The domain separator
 * is computed once per network object.
 *
 * @param network - The network facts (token, chain id, EIP-712 name and version).
 * @param authorization - The authorization with decimal-string numbers.
 * @returns The 32-byte digest.
 * @throws TypeError when a member is not encodable (the payload schema rules that out).
 *
 * @example
 * ```ts
 * import { transferWithAuthorizationDigest } from '@tollgate/core/x402';
 * const digest = transferWithAuthorizationDigest(base, payload.payload.authorization);
 * ```
 */
export function transferWithAuthorizationDigest(network: Pick<GatewayNetwork, 'caip2' | 'chainId' | 'usdc'>, authorization: ExactEvmAuthorization): Uint8Array {
  const checked = checkNetwork(network);
  let separator = domainSeparators.get(checked);
  if (!separator) {
    separator = eip712DomainSeparator(tokenEip712Domain(checked));
    domainSeparators.set(checked, separator);
  }
  return eip712Digest(separator, transferWithAuthorization.hash({ ...authorization }));
}
