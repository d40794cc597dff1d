import { GatewayError } from '../../errors/gateway';
import type { Middleware } from '../../http/types';
import type { RateLimiter, RateLimitRule } from '../../storage/rate-limit/rate-limiter';

/** The public routes with their own limits. */
export interface GatewayRateLimits {
  /** `POST /merchant/challenge`. */
  readonly challenge: RateLimitRule;
  /** `POST /merchant/register`. */
  readonly register: RateLimitRule;
  /** `GET /ref/:refId`. */
  readonly refLookup: RateLimitRule;
  /** `GET`/`HEAD /receive/:payTo`: negotiations and settlements together. */
  readonly receive: RateLimitRule;
}

/**
 * Default limits per client address: 10 challenges and 10 registrations a minute, 120 public ref
 * lookups a minute, 600 receive requests (402s and payments) a minute (bursts up to the limit, then
 * spaced out: see `RateLimiter`).
 *
 * @example
 * ```ts
 * import { defaultGatewayRateLimits } from '@tollgate/core';
 * const limits = { ...defaultGatewayRateLimits, refLookup: { limit: 600, windowMs: 60_000 } };
 * ```
 */
export const defaultGatewayRateLimits: GatewayRateLimits = Object.freeze({
  challenge: { limit: 10, windowMs: 60_000 },
  register: { limit: 10, windowMs: 60_000 },
  refLookup: { limit: 120, windowMs: 60_000 },
  receive: { limit: 600, windowMs: 60_000 },
});

/**
 * Limits of the chain-evidence routes per client address. Each request costs RPC calls (a `/txs` page up
 * to `historyScanBlocks / maxBlockSpan` of them), so these protect the RPC budget as much as the server.
 */
export interface EvidenceRateLimits {
  /** `POST /verify-receipt`. */
  readonly verifyReceipt: RateLimitRule;
  /** `GET /tx/:txHash`. */
  readonly txStatus: RateLimitRule;
  /** `GET /txs`. */
  readonly txHistory: RateLimitRule;
  /** `POST /recover-settlement`. */
  readonly recoverSettlement: RateLimitRule;
}

/**
 * Default evidence limits per client address: 120 receipt verifications and 120 transaction lookups a
 * minute, 30 history pages and 30 settlement recoveries a minute.
 *
 * @example
 * ```ts
 * import { defaultEvidenceRateLimits } from '@tollgate/core/gateway';
 * const limits = { ...defaultEvidenceRateLimits, txHistory: { limit: 10, windowMs: 60_000 } };
 * ```
 */
export const defaultEvidenceRateLimits: EvidenceRateLimits = Object.freeze({
  verifyReceipt: { limit: 120, windowMs: 60_000 },
  txStatus: { limit: 120, windowMs: 60_000 },
  txHistory: { limit: 30, windowMs: 60_000 },
  recoverSettlement: { limit: 30, windowMs: 60_000 },
});

/**
 * A route middleware spending one request of the client's budget for `name`, before the body is read.
 * Over the limit it refuses with `rate_limited` and a `Retry-After` header (whole seconds, rounded
 * up). The key is `gateway:<name>:<client address>`; configure the adapter's address resolver when
 * the gateway runs behind a proxy, or every client shares the proxy's budget.
 *
 * @param limiter - The shared limiter (`createSqlRateLimiter` for several instances).
 * @param name - Which route family.
 * @param rule - Its limit.
 * @returns The middleware.
 * @example
 * ```ts
 * import { route } from '@tollgate/core/http';
 * import { gatewayRateLimit } from '@tollgate/core/gateway';
 * const limited = route({ method: 'GET', path: '/ref/:refId', middleware: [gatewayRateLimit(limiter, 'refLookup', rule)], handler });
 * ```
 */
export function gatewayRateLimit(limiter: RateLimiter, name: string, rule: RateLimitRule): Middleware {
  return async (request, next) => {
    const decision = await limiter.consume(`gateway:${name}:${request.remoteAddress ?? 'unknown'}`, rule);
    if (!decision.allowed) {
      const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
      throw new GatewayError('rate_limited', `Too many requests. Retry after ${retryAfterSeconds} s.`, {
        details: { retryAfterSeconds, limit: rule.limit, windowSeconds: rule.windowMs / 1000 },
        retryAfterSeconds,
      });
    }
    return next();
  };
}
