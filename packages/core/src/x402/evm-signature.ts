import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { getAddress, type Address, type Hex, type LocalAccount } from 'viem';
import { hexDecode, hexEncode } from '../crypto/hex';

/**
 * The key that signs Tollgate's offers and receipts: any viem account with `signTypedData`, such as
 * `privateKeyToAccount(key)`. When it also has `sign({ hash })` (local accounts do) Tollgate signs the
 * digest it computed itself, which is about twice as fast as `signTypedData` and gives the identical
 * (RFC 6979 deterministic) signature; remote or KMS accounts without `sign` get `signTypedData`.
 *
 * @example
 * ```ts
 * import { privateKeyToAccount } from 'viem/accounts';
 * import type { EvmSigner } from '@tollgate/core';
 * const gatewayKey: EvmSigner = privateKeyToAccount(config.GATEWAY_SIGNING_KEY);
 * ```
 */
export type EvmSigner = Pick<LocalAccount, 'address' | 'signTypedData'> & Partial<Pick<LocalAccount, 'sign'>>;

/** Why a 65-byte signature does not recover: bad length, `v` not 27/28, high `s` or not a curve point. */
export type SignatureRecoveryFailure = 'length' | 'v' | 'high_s' | 'invalid';

/** The outcome of {@link recoverDigestSigner}. */
export type SignatureRecovery = { ok: true; address: Address } | { ok: false; failure: SignatureRecoveryFailure };

const HALF_ORDER = secp256k1.Point.Fn.ORDER >> 1n;

/**
 * Recovers the address that produced a 65-byte `r ‖ s ‖ v` ECDSA signature over a 32-byte digest, with
 * `@noble/curves` 2 (≈1.5 ms against ≈2.3 ms for viem's `recoverTypedDataAddress` on this machine). It
 * is as strict as the contracts that execute the signatures (USDC's `ECRecover`, OpenZeppelin `ECDSA`):
 * `v` must be 27 or 28 and `s` in the lower half of the curve order, because anything else would be
 * refused on chain anyway.
 *
 * @param digest - The 32-byte EIP-712 digest.
 * @param signature - `0x` hex.
 * @returns The checksummed signer, or why there is none.
 */
export function recoverDigestSigner(digest: Uint8Array, signature: string): SignatureRecovery {
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature)) return { ok: false, failure: 'length' };
  const bytes = hexDecode(signature.slice(2));
  const v = bytes[64] as number;
  if (v !== 27 && v !== 28) return { ok: false, failure: 'v' };
  const recovered = new Uint8Array(65);
  recovered[0] = v - 27;
  recovered.set(bytes.subarray(0, 64), 1);
  try {
    const signatureObject = secp256k1.Signature.fromBytes(recovered, 'recovered');
    if (signatureObject.s > HALF_ORDER) return { ok: false, failure: 'high_s' };
    const publicKey = signatureObject.recoverPublicKey(digest).toBytes(false);
    return { ok: true, address: getAddress(`0x${hexEncode(keccak_256(publicKey.subarray(1)).subarray(12))}`) };
  } catch {
    // r or s out of range, or r is not the x-coordinate of a curve point.
    return { ok: false, failure: 'invalid' };
  }
}

/** Typed data handed to `signTypedData` when the signer cannot sign a bare digest. */
export interface TypedDataForSigning {
  domain: Record<string, unknown>;
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

/**
 * Signs an EIP-712 digest with the signer's `sign({ hash })` when it has one, else signs the typed data.
 *
 * @param signer - The gateway key.
 * @param digest - The digest Tollgate computed for `typedData`.
 * @param typedData - The same data for `signTypedData`.
 * @returns The 65-byte signature as `0x` hex.
 */
export async function signEip712Digest(signer: EvmSigner, digest: Uint8Array, typedData: TypedDataForSigning): Promise<Hex> {
  if (typeof signer.sign === 'function') return signer.sign({ hash: `0x${hexEncode(digest)}` });
  return signer.signTypedData(typedData as Parameters<EvmSigner['signTypedData']>[0]);
}

/** Compares two addresses byte-wise (case-insensitively). */
export function sameAddress(a: string, b: string): boolean {
  return typeof a === 'string' && typeof b === 'string' && a.length === 42 && a.toLowerCase() === b.toLowerCase();
}
