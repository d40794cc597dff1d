import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { assertBytes, CryptoError } from './crypto-error';
import { ed25519Lengths, readEd25519SignerOptions, type Ed25519SignerOptions } from './ed25519';
import { isCanonicalPointEncoding, isCanonicalScalarEncoding, isSmallOrderPointEncoding } from './ed25519-strictness';
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

/** How many imported public keys {@link verifyEd25519Node} keeps (one per active device, plus the epoch keys). */
const PUBLIC_KEY_CACHE_SIZE = 10_000;
// Imported public keys by their 32 bytes (latin1 string), oldest first. Importing a key cost about as much
// as the verification itself; a device sends the same key on every validation, and the server checks each
// of its own signatures with the same epoch key. Only keys that passed the strict checks and imported are
// kept, so a hit needs neither again. A miss on a key that does not import is not cached (no negative entries).
const publicKeyObjects = new Map<string, KeyObject>();

function publicKeyObject(publicKey: Uint8Array): KeyObject | undefined {
  const bytes = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength);
  const id = bytes.toString('latin1');
  const cached = publicKeyObjects.get(id);
  if (cached !== undefined) return cached;
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, bytes]), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
  if (publicKeyObjects.size >= PUBLIC_KEY_CACHE_SIZE) publicKeyObjects.delete(publicKeyObjects.keys().next().value as string);
  publicKeyObjects.set(id, key);
  return key;
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
 * import { generateEd25519KeyPair } from '@tollgate/core';
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
 * certificates). OpenSSL alone accepts non-canonical and small-order public keys, so this function first
 * applies the same strict byte checks as `verifyEd25519`: canonical `A` and `R`, `S` below the group
 * order, no small-order `A`. The remaining difference is the equation: OpenSSL checks `[S]B = R + [k]A`
 * without the cofactor, so a signature *crafted* with a small-order component in `R` or `A` that does not
 * cancel can be accepted by `verifyEd25519` and refused here. Never the other way round, and honest
 * signatures verify identically in both. Never throws: malformed inputs return `false`.
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
export function verifyEd25519Node(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (!(publicKey instanceof Uint8Array) || !(message instanceof Uint8Array) || !(signature instanceof Uint8Array)) return false;
  if (publicKey.length !== ed25519Lengths.publicKey || signature.length !== ed25519Lengths.signature) return false;
  const r = signature.subarray(0, 32);
  const s = signature.subarray(32);
  if (!isCanonicalPointEncoding(publicKey) || isSmallOrderPointEncoding(publicKey)) return false;
  if (!isCanonicalPointEncoding(r) || !isCanonicalScalarEncoding(s)) return false;
  const key = publicKeyObject(publicKey);
  if (key === undefined) return false; // a y-coordinate that is canonical but not on the curve
  try {
    return nodeVerify(null, message, key, signature);
  } catch {
    return false;
  }
}
