/**
 * Byte-level checks of RFC 8032 strict decoding, cheap enough to run before a native verifier whose own
 * decoding is more permissive (OpenSSL accepts non-canonical and small-order public keys). Internal to
 * the crypto folder: the public verifiers apply them.
 */

/** The Ed25519 field prime p = 2^255 - 19. */
const FIELD_PRIME = (1n << 255n) - 19n;
/** The order L of the Ed25519 prime-order subgroup. */
const GROUP_ORDER = (1n << 252n) + 27742317777372353535851937790883648493n;

/**
 * The canonical encodings of the eight points of small order (the torsion subgroup: the identity, one
 * point of order 2, two of order 4, four of order 8). A public key equal to one of these verifies
 * "signatures" on any message, so a strict verifier refuses it. `node-ed25519-signer.test.ts` derives the
 * subgroup again from the curve arithmetic and forges a signature for each point.
 */
const SMALL_ORDER_ENCODINGS: readonly string[] = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  '0000000000000000000000000000000000000000000000000000000000000080',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
  '0000000000000000000000000000000000000000000000000000000000000000',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
];

const SMALL_ORDER_SET = new Set(SMALL_ORDER_ENCODINGS);

/** Reads `bytes` as a little-endian unsigned integer. */
function littleEndianToBigInt(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let index = bytes.length - 1; index >= 0; index--) value = (value << 8n) | BigInt(bytes[index] as number);
  return value;
}

/**
 * True when 32 bytes are the canonical encoding of a y-coordinate with its x sign bit (RFC 8032 §5.1.3):
 * y below p, and the sign bit clear when x = 0 (y = 1 or y = p - 1), since -0 is not a canonical x.
 * Whether y lies on the curve is left to the verifier.
 */
export function isCanonicalPointEncoding(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  const signBitSet = ((bytes[31] as number) & 0x80) !== 0;
  const y = littleEndianToBigInt(bytes) & ((1n << 255n) - 1n);
  if (y >= FIELD_PRIME) return false;
  return !(signBitSet && (y === 1n || y === FIELD_PRIME - 1n));
}

/** True when 32 bytes encode a scalar below the group order L (RFC 8032 §5.1.7 requires S < L). */
export function isCanonicalScalarEncoding(bytes: Uint8Array): boolean {
  return bytes.length === 32 && littleEndianToBigInt(bytes) < GROUP_ORDER;
}

/** True when 32 bytes are one of the eight canonical small-order point encodings. */
export function isSmallOrderPointEncoding(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return SMALL_ORDER_SET.has(hex);
}

/**
 * The byte checks noble's strict `verifyEd25519` applies before the equation, for verifiers whose
 * engine is laxer (OpenSSL, WebCrypto): a 32-byte canonical public key that is not of small order, and
 * a 64-byte signature with canonical `R` and `S` below the group order.
 *
 * @param publicKey - The public key.
 * @param signature - The signature.
 * @returns Whether both pass (a verifier then asks its engine; otherwise it answers `false`).
 * @example
 * ```ts
 * if (!isStrictEd25519Input(publicKey, signature)) return false;
 * ```
 */
export function isStrictEd25519Input(publicKey: Uint8Array, signature: Uint8Array): boolean {
  if (!(publicKey instanceof Uint8Array) || !(signature instanceof Uint8Array)) return false;
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  if (!isCanonicalPointEncoding(publicKey) || isSmallOrderPointEncoding(publicKey)) return false;
  return isCanonicalPointEncoding(signature.subarray(0, 32)) && isCanonicalScalarEncoding(signature.subarray(32));
}
