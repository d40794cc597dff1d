/**
 * RFC 8949 §4.2.1 map key order: bytewise lexicographic comparison of the keys' encodings, here given as
 * two ranges of one buffer. A proper prefix sorts first; equal ranges are the same key. Shared by the
 * encoder (to sort) and the strict decoder (to check order and spot duplicates in one comparison).
 */
export function compareKeyRanges(bytes: Uint8Array, aStart: number, aEnd: number, bStart: number, bEnd: number): number {
  const length = Math.min(aEnd - aStart, bEnd - bStart);
  for (let index = 0; index < length; index++) {
    const difference = (bytes[aStart + index] as number) - (bytes[bStart + index] as number);
    if (difference !== 0) return difference;
  }
  return aEnd - aStart - (bEnd - bStart);
}
