import type { BackoffOptions } from './job-queue';

/** Defaults of {@link retryDelayMs}: 1 s after the first failure, never more than one hour. */
export const defaultBackoff: Required<BackoffOptions> = { baseMs: 1_000, maxMs: 3_600_000 };

/**
 * Delay before retrying after the `attempt`-th failed attempt: exponential backoff with full jitter,
 * `floor(random() × min(maxMs, baseMs × 2^(attempt − 1)))`. Full jitter spreads retries of jobs that
 * failed together (an outage) instead of sending them back in waves.
 *
 * @param attempt - attempts made so far, the failed one included (1 for the first failure)
 * @param options - `baseMs` and `maxMs` (see {@link defaultBackoff})
 * @param random - uniform in `[0, 1)`; inject a constant in tests
 * @returns milliseconds, an integer in `[0, min(maxMs, baseMs × 2^(attempt − 1)))`
 *
 * @example
 * ```ts
 * import { retryDelayMs } from '@tollgate/core/storage';
 * retryDelayMs(3, { baseMs: 1000, maxMs: 60_000 }, () => 0.5); // 2000 (half of 4000)
 * ```
 */
export function retryDelayMs(attempt: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const baseMs = options.baseMs ?? defaultBackoff.baseMs;
  const maxMs = options.maxMs ?? defaultBackoff.maxMs;
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError('attempt must be a positive integer.');
  if (!(baseMs >= 0) || !(maxMs >= 0)) throw new RangeError('Backoff bounds must be non-negative.');
  // Cap the exponent too: 2 ** 1100 is Infinity, which min() handles, but keep the math finite.
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 52));
  const sample = random();
  if (!(sample >= 0 && sample < 1)) throw new RangeError('random() must return a number in [0, 1).');
  return Math.floor(sample * ceiling);
}
