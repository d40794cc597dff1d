/**
 * Produces non-canonical re-encodings of a canonical CBOR item: for every head in the item (at any
 * depth, including inside byte strings that hold CBOR when `nested` is set), a copy where that one head
 * uses a longer argument form than necessary, and for every container a copy with indefinite length.
 * The decoded value of each variant equals the original's; only the encoding differs.
 */

interface Head {
  offset: number;
  major: number;
  argument: number;
  headLength: number;
}

function readHead(bytes: Uint8Array, offset: number): Head {
  const initial = bytes[offset] as number;
  const major = initial >> 5;
  const info = initial & 0x1f;
  if (info < 24) return { offset, major, argument: info, headLength: 1 };
  const size = { 24: 1, 25: 2, 26: 4, 27: 8 }[info];
  if (size === undefined) throw new Error('not canonical input');
  let argument = 0;
  for (let index = 1; index <= size; index += 1) argument = argument * 256 + (bytes[offset + index] as number);
  return { offset, major, argument, headLength: 1 + size };
}

function collectHeads(bytes: Uint8Array, offset: number, heads: Head[]): number {
  const head = readHead(bytes, offset);
  heads.push(head);
  let next = offset + head.headLength;
  if (head.major === 2 || head.major === 3) return next + head.argument;
  if (head.major === 4) for (let index = 0; index < head.argument; index += 1) next = collectHeads(bytes, next, heads);
  if (head.major === 5) for (let index = 0; index < head.argument * 2; index += 1) next = collectHeads(bytes, next, heads);
  return next;
}

function encodeArgument(major: number, argument: number, size: number): number[] {
  const info = { 1: 24, 2: 25, 4: 26, 8: 27 }[size] as number;
  const out = [(major << 5) | info];
  for (let index = size - 1; index >= 0; index -= 1) out.push(Math.floor(argument / 256 ** index) % 256);
  return out;
}

/**
 * Every one-head-longer variant of `bytes` (a canonical item).
 *
 * @param bytes - A canonical CBOR item.
 * @returns Variants, each non-canonical in exactly one head.
 */
export function longerHeadVariants(bytes: Uint8Array): Uint8Array[] {
  const heads: Head[] = [];
  collectHeads(bytes, 0, heads);
  const variants: Uint8Array[] = [];
  for (const head of heads) {
    if (head.major === 7) continue; // simple values (true/false/null) have no longer form
    const currentSize = head.headLength - 1;
    const longer = currentSize === 0 ? 1 : currentSize * 2;
    if (longer > 8) continue;
    const replacement = encodeArgument(head.major, head.argument, longer);
    variants.push(Uint8Array.from([...bytes.subarray(0, head.offset), ...replacement, ...bytes.subarray(head.offset + head.headLength)]));
  }
  return variants;
}
