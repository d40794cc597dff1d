const twoTo32 = 2 ** 32;
const bigMaxSafeInteger = BigInt(Number.MAX_SAFE_INTEGER);
const textEncoder = new TextEncoder();

/**
 * The UTF-8 length of `text`, or -1 when it holds a lone surrogate (which has no UTF-8 form: TextEncoder
 * would silently write U+FFFD, and the bytes would no longer match the value).
 */
export function utf8Length(text: string): number {
  let length = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) length += 1;
    else if (unit < 0x800) length += 2;
    else if (unit < 0xd800 || unit > 0xdfff) length += 3;
    else {
      const next = text.charCodeAt(index + 1);
      if (unit > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) return -1;
      length += 4;
      index++;
    }
  }
  return length;
}

/**
 * A growable output buffer that writes CBOR heads in their shortest form. Internal to the encoder.
 */
export class ByteWriter {
  #bytes: Uint8Array;
  #view: DataView;
  #length = 0;

  /** @param initialCapacity - Starting size in bytes; the buffer doubles when it runs out. */
  constructor(initialCapacity = 256) {
    this.#bytes = new Uint8Array(Math.max(16, initialCapacity));
    this.#view = new DataView(this.#bytes.buffer);
  }

  /** Writes a head with a non-negative integer argument below 2^53, in the shortest form. */
  writeHead(majorType: number, argument: number): void {
    const major = majorType << 5;
    if (argument < 24) {
      this.#ensure(1);
      this.#bytes[this.#length++] = major | argument;
    } else if (argument < 0x100) {
      this.#ensure(2);
      this.#bytes[this.#length++] = major | 24;
      this.#bytes[this.#length++] = argument;
    } else if (argument < 0x10000) {
      this.#ensure(3);
      this.#bytes[this.#length++] = major | 25;
      this.#view.setUint16(this.#length, argument);
      this.#length += 2;
    } else if (argument < twoTo32) {
      this.#ensure(5);
      this.#bytes[this.#length++] = major | 26;
      this.#view.setUint32(this.#length, argument);
      this.#length += 4;
    } else {
      this.#ensure(9);
      this.#bytes[this.#length++] = major | 27;
      this.#view.setUint32(this.#length, Math.floor(argument / twoTo32));
      this.#view.setUint32(this.#length + 4, argument % twoTo32);
      this.#length += 8;
    }
  }

  /** Writes a head with a 64-bit argument given as a bigint in [0, 2^64), in the shortest form. */
  writeBigHead(majorType: number, argument: bigint): void {
    if (argument <= bigMaxSafeInteger) {
      this.writeHead(majorType, Number(argument));
      return;
    }
    this.#ensure(9);
    this.#bytes[this.#length++] = (majorType << 5) | 27;
    this.#view.setBigUint64(this.#length, argument);
    this.#length += 8;
  }

  /** Forgets everything written, keeping the allocated buffer for reuse. */
  reset(): void {
    this.#length = 0;
  }

  /** Bytes written so far. */
  get length(): number {
    return this.#length;
  }

  /** A view of written bytes; valid until the next write. */
  subarray(start: number, end: number): Uint8Array {
    return this.#bytes.subarray(start, end);
  }

  /**
   * Writes a text string (head and UTF-8 bytes). Returns false, writing nothing, when the text has a lone
   * surrogate.
   */
  writeText(text: string): boolean {
    const byteLength = utf8Length(text);
    if (byteLength < 0) return false;
    this.writeHead(3, byteLength);
    this.#ensure(byteLength);
    if (byteLength === text.length) {
      // All ASCII: one byte per code unit, cheaper than a TextEncoder call for the short keys we mostly see.
      for (let index = 0; index < byteLength; index++) this.#bytes[this.#length + index] = text.charCodeAt(index);
    } else {
      textEncoder.encodeInto(text, this.#bytes.subarray(this.#length, this.#length + byteLength));
    }
    this.#length += byteLength;
    return true;
  }

  /** Writes one byte as is (simple values, float heads). */
  writeByte(byte: number): void {
    this.#ensure(1);
    this.#bytes[this.#length++] = byte;
  }

  /** Writes a big-endian binary16 bit pattern. */
  writeUint16(bits: number): void {
    this.#ensure(2);
    this.#view.setUint16(this.#length, bits);
    this.#length += 2;
  }

  /** Writes a big-endian binary32 float. */
  writeFloat32(value: number): void {
    this.#ensure(4);
    this.#view.setFloat32(this.#length, value);
    this.#length += 4;
  }

  /** Writes a big-endian binary64 float. */
  writeFloat64(value: number): void {
    this.#ensure(8);
    this.#view.setFloat64(this.#length, value);
    this.#length += 8;
  }

  /** Copies raw bytes. */
  writeBytes(bytes: Uint8Array): void {
    this.#ensure(bytes.length);
    this.#bytes.set(bytes, this.#length);
    this.#length += bytes.length;
  }

  /** A plain `Uint8Array` copy of everything written, sized exactly. */
  toBytes(): Uint8Array {
    return this.#bytes.slice(0, this.#length);
  }

  #ensure(extra: number): void {
    const needed = this.#length + extra;
    if (needed <= this.#bytes.length) return;
    let capacity = this.#bytes.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = new Uint8Array(capacity);
    grown.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = grown;
    this.#view = new DataView(grown.buffer);
  }
}
