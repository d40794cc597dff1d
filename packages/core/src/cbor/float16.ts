// Scratch space for reading the bit pattern of a float32 without allocating per call.
const scratch = new DataView(new ArrayBuffer(4));

/** The bits of canonical NaN, the only NaN encoding RFC 8949 deterministic encoding allows. */
export const canonicalNaNBits = 0x7e00;

/**
 * The IEEE 754 binary16 bit pattern whose value equals `value` exactly, or `undefined` when no half
 * holds it (the value would lose precision or range). NaN maps to {@link canonicalNaNBits}; -0 keeps its
 * sign. Used by the encoder to pick the shortest float and by the decoder to reject longer ones.
 */
export function toFloat16Bits(value: number): number | undefined {
  if (Number.isNaN(value)) return canonicalNaNBits;
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const magnitude = Math.abs(value);
  if (magnitude === Infinity) return sign | 0x7c00;
  if (magnitude === 0) return sign;
  // Every half is also a float32, so a value float32 cannot hold exactly is out at once.
  if (Math.fround(magnitude) !== magnitude) return undefined;
  scratch.setFloat32(0, magnitude);
  const bits = scratch.getUint32(0);
  const biasedExponent = bits >>> 23;
  const mantissa = bits & 0x7fffff;
  if (biasedExponent === 0) return undefined; // float32 subnormals are far below the smallest half
  const exponent = biasedExponent - 127;
  if (exponent > 15) return undefined;
  if (exponent >= -14) {
    // Normal half: 10 mantissa bits, so the low 13 of the 23 must be zero.
    if ((mantissa & 0x1fff) !== 0) return undefined;
    return sign | ((exponent + 15) << 10) | (mantissa >>> 13);
  }
  if (exponent >= -24) {
    // Subnormal half: value = m * 2^-24, so the full significand shifts right without losing bits.
    const significand = mantissa | 0x800000;
    const shift = -(exponent + 1);
    if ((significand & ((1 << shift) - 1)) !== 0) return undefined;
    return sign | (significand >>> shift);
  }
  return undefined;
}

/** The value of an IEEE 754 binary16 bit pattern. */
export function fromFloat16Bits(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1024 + mantissa) * 2 ** (exponent - 25);
}
