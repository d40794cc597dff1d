/** How many requests a key may make per window. */
export interface RateLimitRule {
  /** Requests allowed per window (an integer from 1 to 1 000 000). */
  limit: number;
  /** Window length in milliseconds (an integer from 1 ms to 366 days). */
  windowMs: number;
}

/** The answer to one {@link RateLimiter.consume}. */
export interface RateLimitDecision {
  /** Whether this request may proceed. */
  allowed: boolean;
  /** Requests still allowed right now after this one (0 when refused). */
  remaining: number;
  /** When refused: milliseconds until one request is allowed again. 0 when allowed. */
  retryAfterMs: number;
}

/**
 * Limits requests per key with the generic cell rate algorithm (GCRA): a bucket of `limit` requests
 * that refills continuously, one request every `windowMs / limit`. A burst of `limit` requests is
 * allowed at once; after that requests are spaced out; an idle key is full again after `windowMs`.
 *
 * Contract:
 * - `consume` is atomic per key: concurrent calls on one key, from any number of instances sharing the
 *   implementation's store, never allow more than the rule permits.
 * - Time comes from the injected `Clock`.
 * - A key is meant to be used with one rule; calling it with a different `limit` or `windowMs` starts
 *   its bucket afresh (full). Put the rule's identity in the key when one caller has several limits.
 * - `prune` deletes the state of keys whose bucket is full again (they carry no information) and
 *   returns how many it deleted; run it periodically (for example from a job).
 */
export interface RateLimiter {
  /** Spends one request of `key`'s budget, if there is one. */
  consume(key: string, rule: RateLimitRule): Promise<RateLimitDecision>;
  /** Deletes state that no longer matters; returns the number of keys removed. */
  prune(): Promise<number>;
}

const maxLimit = 1_000_000;
const maxWindowMs = 366 * 24 * 60 * 60 * 1000;

/**
 * Checks a key and rule before they reach the algorithm: bounded integers keep the scaled GCRA
 * arithmetic exact in 64 bits.
 *
 * @throws TypeError for an empty key; RangeError for a limit or window out of bounds
 *
 * @example
 * ```ts
 * import { assertRateLimitInput } from '@tollgate/core/storage';
 * assertRateLimitInput('ip:203.0.113.7', { limit: 60, windowMs: 60_000 });
 * ```
 */
export function assertRateLimitInput(key: string, rule: RateLimitRule): void {
  if (typeof key !== 'string' || key === '') throw new TypeError('The rate-limit key must be a non-empty string.');
  if (!Number.isInteger(rule.limit) || rule.limit < 1 || rule.limit > maxLimit) {
    throw new RangeError(`limit must be an integer from 1 to ${maxLimit}.`);
  }
  if (!Number.isInteger(rule.windowMs) || rule.windowMs < 1 || rule.windowMs > maxWindowMs) {
    throw new RangeError(`windowMs must be an integer from 1 to ${maxWindowMs}.`);
  }
}
