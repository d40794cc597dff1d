import { isStrictEd25519Input } from './ed25519-strictness';
import { hexEncode } from './hex';

/**
 * The two functions of `node:crypto` a native verifier needs, typed structurally so that this file
 * stays platform-neutral: Node's module is passed in (`import * as crypto from 'node:crypto'`, or
 * `process.getBuiltinModule('node:crypto')` where a static import is not allowed).
 */
export interface NativeEd25519Crypto {
  createPublicKey(options: { key: Uint8Array; format: 'der'; type: 'spki' }): unknown;
  verify(algorithm: null, data: Uint8Array, key: never, signature: Uint8Array): boolean;
}

/** DER of a `SubjectPublicKeyInfo` for Ed25519 (RFC 8410 §4) up to the 32 key bytes that follow. */
const SPKI_ED25519_PREFIX = Uint8Array.of(0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00);

/** How many imported public keys a native verifier keeps (one per active device, plus the epoch keys). */
const PUBLIC_KEY_CACHE_SIZE = 10_000;

/**
 * An Ed25519 signature check `(publicKey, message, signature) => boolean` on a runtime's native Ed25519 (OpenSSL through `node:crypto`), with the
 * strictness of the noble `verifyEd25519`: OpenSSL alone accepts non-canonical and small-order public
 * keys, so canonical `A` and `R`, `S` below the group order and no small-order `A` are checked first.
 * The remaining difference is the equation: OpenSSL checks `[S]B = R + [k]A` without the cofactor, so a
 * signature *crafted* with a small-order component that does not cancel can be accepted by noble and
 * refused here — never the other way round; honest signatures verify identically. Imported keys are
 * cached (importing costs about as much as verifying); a key that does not import is not cached. Never
 * throws: malformed inputs return `false`.
 *
 * @param crypto - Node's `node:crypto` module (or a runtime's compatible one).
 * @returns The verifier.
 * @example
 * ```ts
 * import * as crypto from 'node:crypto';
 * import { createNativeEd25519Verifier } from '@tollgate/core/crypto';
 * const verify = createNativeEd25519Verifier(crypto);
 * const ok = verify(publicKey, message, signature);
 * ```
 */
export function createNativeEd25519Verifier(crypto: NativeEd25519Crypto): (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean {
  // Imported keys by their hex, oldest first (a device sends the same key on every validation).
  const keyObjects = new Map<string, unknown>();
  const keyObject = (publicKey: Uint8Array): unknown => {
    const id = hexEncode(publicKey);
    const cached = keyObjects.get(id);
    if (cached !== undefined) return cached;
    const der = new Uint8Array(SPKI_ED25519_PREFIX.length + publicKey.length);
    der.set(SPKI_ED25519_PREFIX, 0);
    der.set(publicKey, SPKI_ED25519_PREFIX.length);
    let key: unknown;
    try {
      key = crypto.createPublicKey({ key: der, format: 'der', type: 'spki' });
    } catch {
      return undefined; // a y-coordinate that is canonical but not on the curve
    }
    if (keyObjects.size >= PUBLIC_KEY_CACHE_SIZE) keyObjects.delete(keyObjects.keys().next().value as string);
    keyObjects.set(id, key);
    return key;
  };
  return (publicKey, message, signature) => {
    if (!(message instanceof Uint8Array) || !isStrictEd25519Input(publicKey, signature)) return false;
    const key = keyObject(publicKey);
    if (key === undefined) return false;
    try {
      return crypto.verify(null, message, key as never, signature);
    } catch {
      return false;
    }
  };
}
