/** The JOSE/COSE algorithm name of every Tollgate signature: pure Ed25519 (COSE alg -8, "EdDSA"). */
export type SignatureAlgorithm = 'EdDSA';

/**
 * The signing port: servers sign challenges, receipts, tickets and certificates through it, never with
 * raw key bytes, so a KMS or HSM can hold the key instead of the process.
 *
 * Contract for every implementation (`createNobleEd25519Signer`, `createNodeEd25519Signer`, a KMS/HSM
 * adapter):
 * - **Algorithm:** pure Ed25519 per RFC 8032 §5.1.6 (no pre-hash, no context). Signatures are
 *   deterministic: the same key and message give the same 64 bytes on every call and in every
 *   implementation, so known-answer vectors apply to all of them.
 * - **Verifiable:** every signature verifies with `verifyEd25519(signer.publicKey, message, signature)`.
 * - **Identity:** `kid` names the key (the signing epoch id for license artifacts) and never changes for
 *   the lifetime of the signer; `publicKey` is the 32-byte RFC 8032 encoding of the matching public key.
 *   Callers must treat `publicKey` as read-only.
 * - **Inputs:** `message` is read, never mutated or retained after the promise settles; any length.
 * - **Concurrency:** `sign` may be called concurrently; calls are independent and need no ordering.
 * - **Failure:** a refused input or an unavailable backend rejects the promise (a `CryptoError` for bad
 *   input); it never resolves with a partial or placeholder signature.
 * - **Secrecy:** the private key is never exposed through the object (no property, no `toJSON`), so
 *   logging a signer cannot leak it.
 *
 * @example
 * ```ts
 * import { createNobleEd25519Signer, type Signer } from '@tollgate/core';
 * import { verifyEd25519, utf8Encode } from '@tollgate/core/crypto';
 * const signer: Signer = createNobleEd25519Signer({ privateKey: seed, kid: epochId });
 * const message = utf8Encode('hello');
 * const signature = await signer.sign(message);
 * verifyEd25519(signer.publicKey, message, signature); // true
 * ```
 */
export interface Signer {
  /** Key identifier carried next to each signature (COSE `kid`). */
  readonly kid: string;
  /** Always `'EdDSA'` (Ed25519). */
  readonly alg: SignatureAlgorithm;
  /** The 32-byte Ed25519 public key. */
  readonly publicKey: Uint8Array;
  /**
   * Signs `message` with the private key.
   *
   * @param message - The exact bytes to sign.
   * @returns The 64-byte Ed25519 signature `R || S`.
   */
  sign(message: Uint8Array): Promise<Uint8Array>;
}
