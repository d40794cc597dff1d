import { describe, expect, it } from 'vitest';
import { hmacSha256 } from '../../crypto/hash';
import { utf8Encode } from '../../crypto/utf8';
import { HyperLogLog, hllRelativeStandardError } from './hll';

/** Synthetic device pseudonyms, made the way the server makes them (HMAC-SHA-256 under a fixed key). */
const key = new Uint8Array(32).fill(7);
const cache: Uint8Array[] = [];
const pseudonym = (index: number) => (cache[index] ??= hmacSha256(key, utf8Encode(`device\u0000synthetic-${index}`)));

function sketchOf(from: number, to: number): HyperLogLog {
  const sketch = new HyperLogLog();
  for (let index = from; index < to; index++) sketch.addHash(pseudonym(index));
  return sketch;
}

// The stated error: within 3 relative standard errors (1.04/√16384 ≈ 0.81 %, so 2.44 %).
const tolerance = 3 * hllRelativeStandardError;

describe('HyperLogLog (p = 14, 6-bit registers)', () => {
  it('estimates 100,000 synthetic devices within its stated error, and adding them again changes nothing', () => {
    const sketch = sketchOf(0, 100_000);
    const estimate = sketch.estimate();
    expect(Math.abs(estimate - 100_000) / 100_000).toBeLessThanOrEqual(tolerance);
    const again = HyperLogLog.fromBytes(sketch.toBytes());
    for (let index = 0; index < 100_000; index += 7) again.addHash(pseudonym(index));
    expect(again.estimate()).toBe(estimate);
  });

  it.each([1, 10, 1_000, 10_000, 30_000, 60_000])('estimates %i devices within its stated error (small counts: linear counting)', (count) => {
    const estimate = sketchOf(0, count).estimate();
    expect(Math.abs(estimate - count)).toBeLessThanOrEqual(Math.max(1, Math.ceil(count * tolerance)));
  });

  it('merges day sketches into the distinct count of the week (overlapping devices counted once)', () => {
    // Seven days of 20,000 devices each, every day sharing 15,000 with the day before: 50,000 distinct.
    const week = new HyperLogLog();
    for (let day = 0; day < 7; day++) week.merge(HyperLogLog.fromBytes(sketchOf(day * 5_000, day * 5_000 + 20_000).toBytes()));
    expect(Math.abs(week.estimate() - 50_000) / 50_000).toBeLessThanOrEqual(tolerance);
  });

  it('stores small sketches sparse and large ones dense, round-tripping exactly, the same devices giving the same bytes', () => {
    const small = sketchOf(0, 100);
    expect(small.toBytes()[2]).toBe(1);
    expect(small.toBytes().length).toBe(3 + 3 * small.registers.filter((register) => register !== 0).length);
    const large = sketchOf(0, 20_000);
    expect(large.toBytes()[2]).toBe(0);
    expect(large.toBytes().length).toBe(3 + 12_288);
    for (const sketch of [small, large]) expect(HyperLogLog.fromBytes(sketch.toBytes()).registers).toEqual(sketch.registers);
    // Order of insertion does not matter.
    const reversed = new HyperLogLog();
    for (let index = 19_999; index >= 0; index--) reversed.addHash(pseudonym(index));
    expect(reversed.toBytes()).toEqual(large.toBytes());
  });

  it('refuses bytes that are not a sketch of this format', () => {
    expect(() => HyperLogLog.fromBytes(new Uint8Array([2, 14, 0]))).toThrow(RangeError);
    expect(() => HyperLogLog.fromBytes(new Uint8Array([1, 12, 1]))).toThrow(RangeError);
    expect(() => HyperLogLog.fromBytes(new Uint8Array([1, 14, 0, 1, 2]))).toThrow(RangeError);
    expect(() => HyperLogLog.fromBytes(new Uint8Array([1, 14, 1, 0xff, 0xff, 1]))).toThrow(RangeError);
    expect(() => new HyperLogLog().addHash(new Uint8Array(4))).toThrow(RangeError);
  });
});
