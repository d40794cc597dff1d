import { secp256k1 } from '@noble/curves/secp256k1.js';

/**
 * The secp256k1 arithmetic Tollgate's EVM signatures need, as a port so that a server can plug in a
 * faster implementation (libsecp256k1 through N-API: `loadSecp256k1Backend` in
 * `@tollgate/gateway-server`) while browsers and every other runtime keep {@link nobleSecp256k1}.
 *
 * Contract of every implementation (the checks around it stay in Tollgate's own code, so swapping the
 * backend never changes what is accepted):
 * - `recoverPublicKey` is only called with `r` and `s` already checked to lie in `[1, n-1]` and `s` in
 *   the lower half; it returns the 65-byte uncompressed key `04 ‖ x ‖ y`, or `undefined` when no key
 *   recovers (`r` is not the x-coordinate of a curve point, or the result is the point at infinity).
 *   It never throws. The digest is reduced modulo `n` as ECDSA specifies, never hashed again.
 * - `sign` is RFC 6979 deterministic ECDSA without extra entropy, normalised to low `s`: for the same
 *   digest and key every implementation returns the same 64 bytes `r ‖ s` and recovery bit (the
 *   parity of the nonce point's y). It throws on a key outside `[1, n-1]`, and in the ~2^-128 case
 *   where the nonce point's x overflows the order (recovery id 2 or 3, which `v` = 27/28 cannot carry).
 * - Both are synchronous and keep no state between calls.
 *
 * @example
 * ```ts
 * import { nobleSecp256k1, type Secp256k1Backend } from '@tollgate/core/x402';
 * const backend: Secp256k1Backend = nobleSecp256k1;
 * const { signature, recoveryBit } = backend.sign(digest, privateKey);
 * backend.recoverPublicKey(digest, signature, recoveryBit); // Uint8Array(65) starting with 0x04
 * ```
 */
export interface Secp256k1Backend {
  /** Short name for logs and benchmarks (`noble`, `libsecp256k1`). */
  readonly name: string;
  /**
   * Recovers the signer's public key.
   *
   * @param digest - 32 bytes.
   * @param signature - 64 bytes `r ‖ s`, both checked by the caller.
   * @param recoveryBit - 0 or 1 (`v - 27`).
   * @returns The uncompressed key (65 bytes), or `undefined` when none recovers.
   */
  recoverPublicKey(digest: Uint8Array, signature: Uint8Array, recoveryBit: 0 | 1): Uint8Array | undefined;
  /**
   * Signs a digest.
   *
   * @param digest - 32 bytes.
   * @param privateKey - 32 bytes.
   * @returns `r ‖ s` (64 bytes, low `s`) and the recovery bit.
   */
  sign(digest: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recoveryBit: 0 | 1 };
}

/**
 * The portable {@link Secp256k1Backend}: `@noble/curves` 2 in pure JavaScript, on every runtime. On
 * this project's 2-core reference machine a recovery takes about 1.4 ms and a signature about 0.47 ms;
 * libsecp256k1 does the same in about 0.06 and 0.04 ms (`npm run bench -- secp256k1`).
 *
 * @example
 * ```ts
 * import { nobleSecp256k1, recoverDigestSigner } from '@tollgate/core/x402';
 * recoverDigestSigner(digest, signatureHex, nobleSecp256k1); // the default backend, named
 * ```
 */
export const nobleSecp256k1: Secp256k1Backend = {
  name: 'noble',
  recoverPublicKey(digest, signature, recoveryBit) {
    try {
      return secp256k1.Signature.fromBytes(signature, 'compact').addRecoveryBit(recoveryBit).recoverPublicKey(digest).toBytes(false);
    } catch {
      return undefined;
    }
  },
  sign(digest, privateKey) {
    // prehash: false because the digest is already EIP-712's keccak; extraEntropy: false for RFC 6979.
    const recovered = secp256k1.sign(digest, privateKey, { prehash: false, lowS: true, extraEntropy: false, format: 'recovered' });
    const recoveryBit = recovered[0];
    // 2 and 3 mean r overflowed the order (probability about 2^-128): no EVM `v` can express it.
    if (recoveryBit !== 0 && recoveryBit !== 1) throw new Error(`noble returned recovery id ${recoveryBit}, which v = 27/28 cannot carry.`);
    return { signature: recovered.slice(1), recoveryBit };
  },
};
