/**
 * A small HyperLogLog (Flajolet et al. 2007) for distinct-device counts in the analytics rollups.
 *
 * - Precision p = 14: m = 16,384 registers of 6 bits; relative standard error 1.04 / √m ≈ 0.81 %.
 * - Input is a 64-bit hash that is already uniform (the HMAC pseudonyms are): the first 14 bits pick the
 *   register, the rank is the position of the first 1 bit in the remaining 50 (1–51, fits 6 bits).
 * - Estimate: the raw harmonic-mean estimate, with linear counting while it is at most 2.5·m and a
 *   register is still zero. No large-range correction is needed with 64-bit hashes.
 * - Sketches merge by taking the larger register: the sketch of a week is the merge of its days.
 *
 * Stored form (bytea): byte 0 format version (1), byte 1 p (14), byte 2 encoding, then either
 * `0` dense: the 16,384 registers packed 6 bits each, big-endian bit order (12,288 bytes); or
 * `1` sparse: the non-zero registers as (index u16 big-endian, rank u8), ascending index, used while
 * that is shorter than dense (fewer than 4,096 non-zero registers). The encoding is a pure function of
 * the registers, so the same devices always give the same bytes (rollups re-run byte-identical).
 */

/** Register-index bits. */
export const hllPrecision = 14;
const registerCount = 1 << hllPrecision;
const denseBytes = (registerCount * 6) / 8;
const formatVersion = 1;

/** The relative standard error of an estimate, 1.04 / √m. */
export const hllRelativeStandardError = 1.04 / Math.sqrt(registerCount);

/**
 * A HyperLogLog sketch (see the module comment for the parameters and the stored form).
 *
 * @example
 * ```ts
 * import { HyperLogLog } from '@tollgate/core/license';
 * const sketch = new HyperLogLog();
 * sketch.addHash(pseudonymBytes);
 * const devices = sketch.estimate();
 * ```
 */
export class HyperLogLog {
  readonly registers: Uint8Array;

  constructor(registers?: Uint8Array) {
    if (registers !== undefined && registers.length !== registerCount) throw new RangeError(`A sketch has ${registerCount} registers.`);
    this.registers = registers ?? new Uint8Array(registerCount);
  }

  /** Adds an item by its uniform hash (at least 8 bytes; only the first 8 are read). */
  addHash(hash: Uint8Array): void {
    if (hash.length < 8) throw new RangeError('A HyperLogLog hash needs at least 8 bytes.');
    const high = ((hash[0]! << 24) | (hash[1]! << 16) | (hash[2]! << 8) | hash[3]!) >>> 0;
    const low = ((hash[4]! << 24) | (hash[5]! << 16) | (hash[6]! << 8) | hash[7]!) >>> 0;
    const index = high >>> (32 - hllPrecision);
    const restHigh = high & ((1 << (32 - hllPrecision)) - 1);
    const rank = restHigh !== 0 ? Math.clz32(restHigh) - hllPrecision + 1 : low !== 0 ? 32 - hllPrecision + Math.clz32(low) + 1 : 64 - hllPrecision + 1;
    if (rank > this.registers[index]!) this.registers[index] = rank;
  }

  /** Folds another sketch into this one (register-wise maximum). */
  merge(other: HyperLogLog): this {
    for (let i = 0; i < registerCount; i++) if (other.registers[i]! > this.registers[i]!) this.registers[i] = other.registers[i]!;
    return this;
  }

  /** The estimated number of distinct items, rounded. */
  estimate(): number {
    let sum = 0;
    let zeros = 0;
    for (let i = 0; i < registerCount; i++) {
      const register = this.registers[i]!;
      sum += 2 ** -register;
      if (register === 0) zeros++;
    }
    const alpha = 0.7213 / (1 + 1.079 / registerCount);
    const raw = (alpha * registerCount * registerCount) / sum;
    if (raw <= 2.5 * registerCount && zeros > 0) return Math.round(registerCount * Math.log(registerCount / zeros));
    return Math.round(raw);
  }

  /** The stored form (module comment). */
  toBytes(): Uint8Array {
    let nonZero = 0;
    for (const register of this.registers) if (register !== 0) nonZero++;
    if (nonZero * 3 < denseBytes) {
      const out = new Uint8Array(3 + nonZero * 3);
      out.set([formatVersion, hllPrecision, 1]);
      let at = 3;
      for (let i = 0; i < registerCount; i++) {
        const register = this.registers[i]!;
        if (register === 0) continue;
        out[at++] = i >>> 8;
        out[at++] = i & 0xff;
        out[at++] = register;
      }
      return out;
    }
    const out = new Uint8Array(3 + denseBytes);
    out.set([formatVersion, hllPrecision, 0]);
    // Four 6-bit registers fill three bytes exactly.
    for (let i = 0, at = 3; i < registerCount; i += 4, at += 3) {
      const word = (this.registers[i]! << 18) | (this.registers[i + 1]! << 12) | (this.registers[i + 2]! << 6) | this.registers[i + 3]!;
      out[at] = word >>> 16;
      out[at + 1] = (word >>> 8) & 0xff;
      out[at + 2] = word & 0xff;
    }
    return out;
  }

  /**
   * Reads a stored sketch.
   *
   * @throws RangeError when the bytes are not a sketch of this format.
   */
  static fromBytes(bytes: Uint8Array): HyperLogLog {
    if (bytes.length < 3 || bytes[0] !== formatVersion || bytes[1] !== hllPrecision) throw new RangeError('Not a HyperLogLog sketch of format 1, p = 14.');
    const registers = new Uint8Array(registerCount);
    if (bytes[2] === 1) {
      if ((bytes.length - 3) % 3 !== 0) throw new RangeError('A sparse sketch holds 3-byte entries.');
      for (let at = 3; at < bytes.length; at += 3) {
        const index = (bytes[at]! << 8) | bytes[at + 1]!;
        if (index >= registerCount || bytes[at + 2]! > 64 - hllPrecision + 1) throw new RangeError('A sparse sketch entry is out of range.');
        registers[index] = bytes[at + 2]!;
      }
      return new HyperLogLog(registers);
    }
    if (bytes[2] !== 0 || bytes.length !== 3 + denseBytes) throw new RangeError('A dense sketch holds 12,288 bytes of registers.');
    for (let i = 0, at = 3; i < registerCount; i += 4, at += 3) {
      const word = (bytes[at]! << 16) | (bytes[at + 1]! << 8) | bytes[at + 2]!;
      registers[i] = word >>> 18;
      registers[i + 1] = (word >>> 12) & 0x3f;
      registers[i + 2] = (word >>> 6) & 0x3f;
      registers[i + 3] = word & 0x3f;
    }
    return new HyperLogLog(registers);
  }
}
