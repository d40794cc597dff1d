import { LicenseClientError } from '../../errors/license-client';
import type { RateLimitDecision, RateLimiter, RateLimitRule } from '../../storage/rate-limit/rate-limiter';
import type { ClientProtocolDeps } from './client-protocol-deps';

/** The routes with budgets. */
export type RateLimitedClientRoute = 'activate' | 'validate' | 'offline' | 'heartbeat' | 'deactivate';

/**
 * The routes that also have a per-license budget. Heartbeat and deactivate have only the address's: every
 * machine of a floating license heartbeats, so a shared license bucket would refuse on-time heartbeats of
 * a busy license (and let one machine burn it) and the reclaim job would then take those seats.
 */
export type LicenseBudgetedClientRoute = Exclude<RateLimitedClientRoute, 'heartbeat' | 'deactivate'>;

/** Whose budget: the client address's, or (routes with one) the license's. */
export type ClientBudgetSubject<Route extends RateLimitedClientRoute> =
  | { readonly address: string | undefined }
  | (Route extends LicenseBudgetedClientRoute ? { readonly licenseId: string } : never);

/**
 * The routes whose per-address budget is kept per instance, in memory (`ClientProtocolContext.addressLimiter`):
 * the frequent session calls, where a shared SQL bucket would cost a database write before the request
 * is even read. Activation, offline and deactivation (rare, and they move seats) keep the shared one.
 */
const perInstanceAddressRoutes: ReadonlySet<RateLimitedClientRoute> = new Set(['validate', 'heartbeat']);

/**
 * The limiter, rule and key of one budget, or `undefined` when the deployment configured none.
 *
 * @param deps - The limiters and the rules.
 * @param route - Which route's budget.
 * @param subject - `{ address }` or `{ licenseId }` (not for heartbeat and deactivate, see {@link LicenseBudgetedClientRoute}).
 * @returns What to spend.
 * @example
 * ```ts
 * import { clientBudget } from '@tollgate/core/license';
 * const budget = clientBudget(context, 'validate', { licenseId });
 * ```
 */
export function clientBudget<Route extends RateLimitedClientRoute>(
  deps: Pick<ClientProtocolDeps, 'rateLimiter' | 'rateLimits'> & { readonly addressLimiter?: RateLimiter | undefined },
  route: Route,
  subject: ClientBudgetSubject<Route>,
): { limiter: RateLimiter; rule: RateLimitRule; key: string; byAddress: boolean } | undefined {
  if (deps.rateLimiter === undefined) return undefined;
  const byAddress = 'address' in subject;
  const limiter = byAddress && perInstanceAddressRoutes.has(route) ? (deps.addressLimiter ?? deps.rateLimiter) : deps.rateLimiter;
  const rule = byAddress ? deps.rateLimits?.perAddress : deps.rateLimits?.perLicense;
  if (rule === undefined) return undefined;
  const key = byAddress ? `license-client:${route}:address:${subject.address ?? 'unknown'}` : `license-client:${route}:license:${subject.licenseId}`;
  return { limiter, rule, key, byAddress };
}

/**
 * The 1005 (429) refusal of a budget that refused, with `retry_after` and `Retry-After` in whole seconds,
 * rounded up.
 *
 * @param decision - The refusing decision.
 * @param byAddress - Whether it was the address's budget (else the license's).
 * @returns The error to throw.
 * @example
 * ```ts
 * import { budgetRefusal } from '@tollgate/core/license';
 * if (!decision.allowed) throw budgetRefusal(decision, false);
 * ```
 */
export function budgetRefusal(decision: RateLimitDecision, byAddress: boolean): LicenseClientError {
  const retryAfterSeconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  return new LicenseClientError(1005, `Too many requests ${byAddress ? 'from this address' : 'for this license'}; retry after ${retryAfterSeconds} s.`, { retryAfterSeconds });
}

/**
 * Spends one request of a budget of the client protocol, if the deployment configured one: the client
 * address's (before anything else is done) or the license's (once the request proved who sent it, so a
 * stranger naming a license id cannot exhaust that license's budget). Over budget: 1005 (429) with
 * `retry_after` and `Retry-After` in whole seconds, rounded up. The address budgets of validate and
 * heartbeat are per instance (see {@link clientBudget}).
 *
 * @param deps - The limiters and the rules.
 * @param route - Which route's budget (each route has its own).
 * @param subject - `{ address }` or `{ licenseId }`.
 * @throws LicenseClientError 1005.
 * @example
 * ```ts
 * import { spendClientBudget } from '@tollgate/core/license';
 * await spendClientBudget(deps, 'validate', { address: request.remoteAddress });
 * ```
 */
export async function spendClientBudget<Route extends RateLimitedClientRoute>(
  deps: Pick<ClientProtocolDeps, 'rateLimiter' | 'rateLimits'> & { readonly addressLimiter?: RateLimiter | undefined },
  route: Route,
  subject: ClientBudgetSubject<Route>,
): Promise<void> {
  const budget = clientBudget(deps, route, subject);
  if (budget === undefined) return;
  const decision = await budget.limiter.consume(budget.key, budget.rule);
  if (!decision.allowed) throw budgetRefusal(decision, budget.byAddress);
}
