export { CryptoError, type CryptoErrorCode } from './crypto-error';
export { hexEncode, hexDecode } from './hex';
export { utf8Encode, utf8Decode } from './utf8';
export { base64Encode, base64UrlEncode, base64Decode } from './base64';
export { randomBytes, randomId, randomEpochId, isHexId, type RandomSource } from './random';
export { sha256, hmacSha256 } from './hash';
export { keyedHash, keyedHashLabels, KEYED_HASH_MIN_KEY_BYTES } from './keyed-hash';
export { constantTimeEqual, constantTimeEqualString } from './constant-time';
export type { Signer, SignatureAlgorithm } from './signer';
export {
  createNobleEd25519Signer,
  generateEd25519KeyPair,
  ed25519PublicKey,
  verifyEd25519,
  ed25519Lengths,
  type Ed25519KeyPair,
  type Ed25519SignerOptions,
} from './ed25519';
export { createNativeEd25519Verifier, type NativeEd25519Crypto } from './native-ed25519-verifier';
export { isStrictEd25519Input } from './ed25519-strictness';
