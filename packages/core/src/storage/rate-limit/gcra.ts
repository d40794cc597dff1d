import type { RateLimitDecision, RateLimitRule } from './rate-limiter';

/**
 * GCRA state of one key. Times are scaled by the rule's limit (milliseconds × limit) so the emission
 * interval `windowMs / limit` is the integer `windowMs`: no rounding, ever.
 */
export interface GcraState {
  /** Theoretical arrival time of the next request, in ms × limit. */
  tat: bigint;
  limit: number;
  windowMs: number;
}

/**
 * One GCRA step, the reference the SQL statement of the SQL limiter mirrors. With `T = windowMs` (the
 * scaled emission interval) and `now` scaled: a request is allowed when
 * `max(tat, now) + T − now ≤ windowMs × limit`, which then becomes the new `tat`.
 *
 * @param state - the key's state, or `undefined` for an unseen key
 * @param nowMs - current time in integer milliseconds
 * @param rule - the limit and window (validated by the caller)
 * @returns the decision and the state to store
 *
 * @example
 * ```ts
 * import { gcraStep } from '@tollgate/core/storage';
 * const first = gcraStep(undefined, 0, { limit: 2, windowMs: 1000 }); // allowed, remaining 1
 * ```
 */
export function gcraStep(
  state: GcraState | undefined,
  nowMs: number,
  rule: RateLimitRule,
): { decision: RateLimitDecision; state: GcraState } {
  const limit = BigInt(rule.limit);
  const interval = BigInt(rule.windowMs);
  const capacity = interval * limit;
  const now = BigInt(Math.floor(nowMs)) * limit;
  const sameRule = state !== undefined && state.limit === rule.limit && state.windowMs === rule.windowMs;
  const base = sameRule && state.tat > now ? state.tat : now;
  const candidate = base + interval;
  if (candidate - now <= capacity) {
    return {
      decision: { allowed: true, remaining: Number((capacity - (candidate - now)) / interval), retryAfterMs: 0 },
      state: { tat: candidate, limit: rule.limit, windowMs: rule.windowMs },
    };
  }
  // Refused: the next request fits once now' ≥ tat + T − capacity (scaled), rounded up to whole ms.
  const waitScaled = base + interval - capacity - now;
  return {
    decision: { allowed: false, remaining: 0, retryAfterMs: Number((waitScaled + limit - 1n) / limit) },
    state: state as GcraState,
  };
}

/**
 * Integer milliseconds at which a key's bucket is full again (state past it can be dropped).
 *
 * @example
 * ```ts
 * import { gcraRefilledAtMs, gcraStep } from '@tollgate/core/storage';
 * const { state } = gcraStep(undefined, 0, { limit: 2, windowMs: 1000 });
 * gcraRefilledAtMs(state); // 500
 * ```
 */
export function gcraRefilledAtMs(state: GcraState): number {
  const limit = BigInt(state.limit);
  return Number((state.tat + limit - 1n) / limit);
}
