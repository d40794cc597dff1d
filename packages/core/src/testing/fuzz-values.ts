/**
 * Seeded input generators for fuzz and property tests: a tiny PRNG, random CBOR trees and byte
 * mutations. Seeded so that every run feeds the same inputs and a failure names a reproducible case.
 */
import type { CborKey, CborValue } from '../cbor/index';

/** A seeded source of random numbers, bytes and picks. */
export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, max). */
  int(max: number): number;
  /** `length` random bytes. */
  bytes(length: number): Uint8Array;
  /** One of `items` (which must not be empty). */
  pick<T>(items: readonly T[]): T;
}

/**
 * mulberry32: a tiny seeded PRNG (not for secrets), so fuzz inputs are the same on every run.
 *
 * @example
 * ```ts
 * const random = seededRandom(42);
 * const input = random.bytes(random.int(400));
 * ```
 */
export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (max: number): number => Math.floor(next() * max);
  const bytes = (length: number): Uint8Array => Uint8Array.from({ length }, () => int(256));
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, bytes, pick };
}

/**
 * Applies one to three random byte edits (replace, delete, insert, truncate, bit flip) to a copy of
 * `seed`: mostly-valid inputs reach deeper into a decoder than random bytes do.
 *
 * @example
 * ```ts
 * const input = mutateBytes(seededRandom(7), encodeCanonical(validRequest));
 * ```
 */
export function mutateBytes(random: SeededRandom, seed: Uint8Array): Uint8Array {
  const bytes = Array.from(seed);
  for (let round = 1 + random.int(3); round > 0; round -= 1) {
    const at = random.int(bytes.length + 1);
    switch (random.int(5)) {
      case 0:
        bytes[at] = random.int(256);
        break;
      case 1:
        bytes.splice(at, 1);
        break;
      case 2:
        bytes.splice(at, 0, random.int(256));
        break;
      case 3:
        bytes.length = at;
        break;
      default:
        bytes[at] = (bytes[at] ?? 0) ^ (1 << random.int(8));
    }
  }
  return Uint8Array.from(bytes);
}

/** The values {@link randomCbor} draws from: each fuzz target passes the ones its decoder cares about. */
export interface RandomCborOptions {
  /** Non-negative integers to pick from (negatives are drawn separately). */
  readonly ints: readonly number[];
  /** Byte string lengths to pick from. */
  readonly byteLengths: readonly number[];
  /** Texts to pick from; a run of `x` up to `longTextMax` characters is added to them. */
  readonly texts: readonly string[];
  readonly longTextMax: number;
  /** Simple values to pick from (`true`, `false`, `null`). */
  readonly simples: readonly (boolean | null)[];
  /** Arrays get fewer than this many items, maps fewer than `mapSize` entries. */
  readonly arrayLength: number;
  readonly mapSize: number;
  /** One map key in `textKeyOdds` is one of `textKeys`; the others come from `intKey`. */
  readonly textKeyOdds: number;
  readonly textKeys: readonly string[];
  readonly intKey: (random: SeededRandom) => number;
}

/**
 * A random CBOR tree (integers, byte strings, texts, simples, arrays, maps) that stops nesting past
 * depth 2, built from `options`' values.
 *
 * @example
 * ```ts
 * const body = encodeCanonical(randomCbor(seededRandom(1), options));
 * ```
 */
export function randomCbor(random: SeededRandom, options: RandomCborOptions, depth = 0): CborValue {
  switch (random.int(depth > 2 ? 4 : 6)) {
    case 0:
      return random.int(3) === 0 ? -random.int(1000) - 1 : random.pick(options.ints);
    case 1:
      return random.bytes(random.pick(options.byteLengths));
    case 2:
      return random.pick([...options.texts, 'x'.repeat(random.int(options.longTextMax))]);
    case 3:
      return random.pick(options.simples);
    case 4:
      return Array.from({ length: random.int(options.arrayLength) }, () => randomCbor(random, options, depth + 1));
    default: {
      const map = new Map<CborKey, CborValue>();
      for (let n = random.int(options.mapSize); n > 0; n -= 1) {
        const key = random.int(options.textKeyOdds) === 0 ? random.pick(options.textKeys) : options.intKey(random);
        map.set(key, randomCbor(random, options, depth + 1));
      }
      return map;
    }
  }
}
