import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { createNativeEd25519Verifier } from './native-ed25519-verifier';
import { assertBytes, CryptoError } from './crypto-error';
import { ed25519Lengths, readEd25519SignerOptions, type Ed25519SignerOptions } from './ed25519';
import type { Signer } from './signer';

/** DER of a PKCS#8 `OneAsymmetricKey` for Ed25519 (RFC 8410 §7) up to the 32 seed bytes that follow. */
const PKCS8_ED25519_PREFIX = Uint8Array.of(
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
);
/** DER of a `SubjectPublicKeyInfo` for Ed25519 (RFC 8410 §4) up to the 32 key bytes that follow. */
const SPKI_ED25519_PREFIX = Uint8Array.of(0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00);

function privateKeyObject(seed: Uint8Array): KeyObject {
  const der = new Uint8Array(PKCS8_ED25519_PREFIX.length + seed.length);
  der.set(PKCS8_ED25519_PREFIX, 0);
  der.set(seed, PKCS8_ED25519_PREFIX.length);
  try {
    return createPrivateKey({ key: Buffer.from(der.buffer, der.byteOffset, der.byteLength), format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0); // the DER holds the seed; the KeyObject keeps its own copy inside OpenSSL
  }
}

function rawPublicKey(privateKey: KeyObject): Uint8Array {
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const prefix = spki.subarray(0, SPKI_ED25519_PREFIX.length);
  if (spki.length !== SPKI_ED25519_PREFIX.length + ed25519Lengths.publicKey || !prefix.equals(SPKI_ED25519_PREFIX)) {
    throw new CryptoError('invalid_key', 'Node returned an unexpected Ed25519 public key encoding.');
  }
  return new Uint8Array(spki.subarray(SPKI_ED25519_PREFIX.length));
}

/**
 * A {@link Signer} backed by Node's native Ed25519 (OpenSSL through `node:crypto`). It produces exactly the
 * bytes of `createNobleEd25519Signer` for the same seed (Ed25519 is deterministic) more than ten times
 * faster, because the seed is imported once into a cached `KeyObject` and each signature is one native call.
 * The seed lives only inside that `KeyObject`; the caller's array is not retained.
 *
 * @param options - The 32-byte seed and the `kid`.
 * @returns A signer whose `sign` resolves to deterministic RFC 8032 signatures.
 * @throws {@link CryptoError} `invalid_key` for a seed that is not 32 bytes; `invalid_argument` for a bad `kid`.
 *
 * @example
 * ```ts
 * import { generateEd25519KeyPair } from '@tollgate/core/crypto';
 * import { createNodeEd25519Signer } from '@tollgate/core/node';
 * const { privateKey } = generateEd25519KeyPair();
 * const signer = createNodeEd25519Signer({ privateKey, kid: 'epoch-1' });
 * const signature = await signer.sign(new TextEncoder().encode('ticket'));
 * ```
 */
export function createNodeEd25519Signer(options: Ed25519SignerOptions): Signer {
  const { seed, kid } = readEd25519SignerOptions(options);
  const keyObject = privateKeyObject(seed);
  seed.fill(0);
  const publicKey = rawPublicKey(keyObject);
  return Object.freeze({
    kid,
    alg: 'EdDSA' as const,
    publicKey,
    async sign(message: Uint8Array): Promise<Uint8Array> {
      assertBytes(message, 'message');
      // A plain Uint8Array copy, so callers never hold a Buffer that may share Node's allocation pool.
      return new Uint8Array(nodeSign(null, message, keyObject));
    },
  });
}

/**
 * {@link verifyEd25519} on Node's native Ed25519, for server hot paths (activation proofs, uploaded
 * certificates): {@link createNativeEd25519Verifier} on `node:crypto`, with the same strict byte checks
 * as `verifyEd25519` (see there for the one difference, on crafted small-order signatures). Never throws.
 *
 * @param publicKey - The 32-byte public key.
 * @param message - The signed bytes.
 * @param signature - The 64-byte signature.
 * @returns Whether the signature is valid for this key and message.
 *
 * @example
 * ```ts
 * import { verifyEd25519Node } from '@tollgate/core/node';
 * const ok = verifyEd25519Node(devicePublicKey, proofMessage, proofSignature);
 * ```
 */
export const verifyEd25519Node: (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean = createNativeEd25519Verifier({
  createPublicKey: (options) => createPublicKey({ ...options, key: Buffer.from(options.key.buffer, options.key.byteOffset, options.key.byteLength) }),
  verify: (algorithm, data, key, signature) => nodeVerify(algorithm, data, key as KeyObject, signature),
});
