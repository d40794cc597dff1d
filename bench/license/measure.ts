/**
 * Tiny benchmark helpers: operations per second over a fixed wall-clock slice, and interleaved rounds so
 * that two implementations see the same machine conditions (thermal state, other processes).
 */
import { performance } from 'node:perf_hooks';

/** Runs `operation` repeatedly for about `durationMs` and returns operations per second. */
export async function opsPerSecond(operation: () => unknown, durationMs: number): Promise<number> {
  let count = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < durationMs) {
    // Batches of 16 keep the clock reads out of the measurement.
    for (let index = 0; index < 16; index += 1) await operation();
    count += 16;
    elapsed = performance.now() - start;
  }
  return (count * 1000) / elapsed;
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Measures several named operations in interleaved rounds (A, B, A, B, …) after one warm-up round.
 *
 * @returns Per-name lists of ops/s, one entry per round.
 */
export async function interleaved(operations: Record<string, () => unknown>, options: { rounds: number; sliceMs: number }): Promise<Record<string, number[]>> {
  const results: Record<string, number[]> = Object.fromEntries(Object.keys(operations).map((name) => [name, []]));
  for (const operation of Object.values(operations)) await opsPerSecond(operation, Math.min(200, options.sliceMs));
  for (let round = 0; round < options.rounds; round += 1) {
    for (const [name, operation] of Object.entries(operations)) results[name]?.push(await opsPerSecond(operation, options.sliceMs));
  }
  return results;
}

/** Formats a number of operations per second. */
export function formatOps(value: number): string {
  return `${Math.round(value).toLocaleString('en-US')} ops/s`;
}
