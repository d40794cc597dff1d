import { ed25519 } from '@noble/curves/ed25519.js';
import { assertBytes, CryptoError } from './crypto-error';
import { randomBytes, type RandomSource } from './random';
import type { Signer } from './signer';

/**
 * Byte lengths of Ed25519 values (RFC 8032): the private key is the 32-byte seed.
 *
 * @example
 * ```ts
 * import { ed25519Lengths } from '@tollgate/core/crypto';
 * if (signature.length !== ed25519Lengths.signature) throw new Error('not an Ed25519 signature');
 * ```
 */
export const ed25519Lengths = { privateKey: 32, publicKey: 32, signature: 64 } as const;

/** An Ed25519 key pair: the 32-byte private seed and its 32-byte public key. */
export interface Ed25519KeyPair {
  /** The 32-byte secret seed (RFC 8032 §5.1.5). Keep it out of logs and out of the database. */
  readonly privateKey: Uint8Array;
  /** The 32-byte public key. */
  readonly publicKey: Uint8Array;
}

/** What an Ed25519 signer factory needs. */
export interface Ed25519SignerOptions {
  /** The 32-byte secret seed. The factory copies it; wiping the caller's array afterwards is safe. */
  readonly privateKey: Uint8Array;
  /** The key identifier to publish next to signatures (1-256 characters). */
  readonly kid: string;
}

/**
 * Checks factory options shared by every Ed25519 signer and returns a private copy of the seed.
 *
 * @internal Used by the noble and Node signers so both refuse the same inputs with the same errors.
 */
export function readEd25519SignerOptions(options: Ed25519SignerOptions): { seed: Uint8Array; kid: string } {
  if (typeof options !== 'object' || options === null) {
    throw new CryptoError('invalid_argument', 'Signer options must be an object.', { details: { argument: 'options' } });
  }
  const { privateKey, kid } = options;
  if (typeof kid !== 'string' || kid.length === 0 || kid.length > 256) {
    throw new CryptoError('invalid_argument', 'A signer kid is a string of 1-256 characters.', { details: { argument: 'kid' } });
  }
  return { seed: copyPrivateKey(privateKey), kid };
}

/** Validates a 32-byte seed and copies it, so later mutation by the caller cannot change the key. */
function copyPrivateKey(privateKey: Uint8Array): Uint8Array {
  assertBytes(privateKey, 'privateKey');
  if (privateKey.length !== ed25519Lengths.privateKey) {
    // A 64-byte value is usually libsodium's seed||publicKey form; say so instead of guessing.
    const hint = privateKey.length === 64 ? ' (a 64-byte key is seed||publicKey: pass its first 32 bytes)' : '';
    throw new CryptoError('invalid_key', `An Ed25519 private key is a 32-byte seed${hint}.`, {
      details: { expectedBytes: ed25519Lengths.privateKey, actualBytes: privateKey.length },
    });
  }
  return privateKey.slice();
}

/**
 * Derives the public key of a 32-byte Ed25519 seed (RFC 8032 §5.1.5).
 *
 * @param privateKey - The 32-byte seed.
 * @returns The 32-byte public key.
 * @throws {@link CryptoError} `invalid_key` when the seed is not 32 bytes.
 *
 * @example
 * ```ts
 * import { hexDecode } from '@tollgate/core';
 * import { ed25519PublicKey } from '@tollgate/core/crypto';
 * const publicKey = ed25519PublicKey(hexDecode(rootSeedHex));
 * ```
 */
export function ed25519PublicKey(privateKey: Uint8Array): Uint8Array {
  return ed25519.getPublicKey(copyPrivateKey(privateKey));
}

/**
 * Generates a fresh Ed25519 key pair from 32 random bytes.
 *
 * @param source - Where the seed comes from; the platform CSPRNG unless a test injects one.
 * @returns The seed and its public key.
 *
 * @example
 * ```ts
 * import { createNobleEd25519Signer } from '@tollgate/core';
 * import { generateEd25519KeyPair, randomEpochId } from '@tollgate/core/crypto';
 * const { privateKey, publicKey } = generateEd25519KeyPair();
 * const signer = createNobleEd25519Signer({ privateKey, kid: randomEpochId() });
 * ```
 */
export function generateEd25519KeyPair(source: RandomSource = randomBytes): Ed25519KeyPair {
  const privateKey = source(ed25519Lengths.privateKey);
  return { privateKey, publicKey: ed25519PublicKey(privateKey) };
}

/**
 * A {@link Signer} computed in JavaScript with `@noble/curves`: runs anywhere (browsers, workers, Deno).
 * On Node prefer `createNodeEd25519Signer` from `@tollgate/core/node`, which produces the same bytes
 * more than ten times faster.
 *
 * @param options - The 32-byte seed and the `kid`.
 * @returns A signer whose `sign` resolves to deterministic RFC 8032 signatures.
 * @throws {@link CryptoError} `invalid_key` for a seed that is not 32 bytes; `invalid_argument` for a bad `kid`.
 *
 * @example
 * ```ts
 * import { createNobleEd25519Signer } from '@tollgate/core';
 * import { generateEd25519KeyPair } from '@tollgate/core/crypto';
 * const { privateKey } = generateEd25519KeyPair();
 * const signer = createNobleEd25519Signer({ privateKey, kid: 'epoch-1' });
 * const signature = await signer.sign(new Uint8Array([1, 2, 3]));
 * ```
 */
export function createNobleEd25519Signer(options: Ed25519SignerOptions): Signer {
  const { seed, kid } = readEd25519SignerOptions(options);
  const publicKey = ed25519.getPublicKey(seed);
  return Object.freeze({
    kid,
    alg: 'EdDSA' as const,
    publicKey,
    async sign(message: Uint8Array): Promise<Uint8Array> {
      assertBytes(message, 'message');
      return ed25519.sign(message, seed);
    },
  });
}

/**
 * Verifies an Ed25519 signature strictly (RFC 8032 §5.1.7 with noble's `zip215: false`):
 * - the public key `A` and the point `R` must be canonical encodings (y below p, no negative zero);
 * - `S` must be below the group order L, so a signature cannot be re-encoded as a second valid one;
 * - public keys of small order (the eight torsion points) are refused, as they "sign" any message;
 * - the cofactored equation `[8][S]B = [8]R + [8][k]A` is checked.
 * Malformed inputs of any kind (wrong lengths, non-`Uint8Array` values, off-curve points) return `false`;
 * this function never throws.
 *
 * @param publicKey - The 32-byte public key.
 * @param message - The signed bytes.
 * @param signature - The 64-byte signature.
 * @returns Whether the signature is valid for this key and message.
 *
 * @example
 * ```ts
 * import { verifyEd25519 } from '@tollgate/core/crypto';
 * if (!verifyEd25519(rootPublicKey, certificateBytes, signature)) throw new Error('bad certificate');
 * ```
 */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (!(publicKey instanceof Uint8Array) || !(message instanceof Uint8Array) || !(signature instanceof Uint8Array)) return false;
  if (publicKey.length !== ed25519Lengths.publicKey || signature.length !== ed25519Lengths.signature) return false;
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}
