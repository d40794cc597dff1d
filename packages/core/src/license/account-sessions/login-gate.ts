/**
 * How one login gate counts and locks. Every login attempt is **charged first** (before the password KDF
 * runs), and a correct password gives the charge back; so concurrent guesses cannot all slip in before
 * the first failure is recorded.
 *
 * - `threshold`: the charge that reaches this count is still let through, but starts a lock;
 * - the lock lasts `baseLockSeconds × 2^(failures − threshold)`, at most `maxLockSeconds`;
 * - attempts while locked are refused (`retry_after` = seconds left) and change nothing;
 * - the count starts again from 0 when the previous charge is `forgetAfterSeconds` old.
 */
export interface LoginGateRule {
  readonly threshold: number;
  readonly baseLockSeconds: number;
  readonly maxLockSeconds: number;
  readonly forgetAfterSeconds: number;
}

/** The gate state of one key (unix seconds). `lockedUntil` 0 means never locked. */
export interface LoginGateState {
  readonly failures: number;
  readonly lastChargeAt: number;
  readonly lockedUntil: number;
}

/** The outcome of {@link loginGateCharge}. */
export type LoginGateDecision =
  | { readonly allowed: true; readonly state: LoginGateState }
  | { readonly allowed: false; readonly retryAfterSeconds: number; readonly state: LoginGateState };

/**
 * The default gates (docs/decisions.md "License: account sessions"): per account, 5 free failures, then
 * 30 s doubling up to 15 min; per client address, the same from 50 failures (a NAT of many users).
 * Counts are forgotten after an hour without attempts.
 */
export const defaultLoginGateRules: { readonly account: LoginGateRule; readonly address: LoginGateRule } = Object.freeze({
  account: Object.freeze({ threshold: 5, baseLockSeconds: 30, maxLockSeconds: 900, forgetAfterSeconds: 3600 }),
  address: Object.freeze({ threshold: 50, baseLockSeconds: 30, maxLockSeconds: 900, forgetAfterSeconds: 3600 }),
});

// Doubling stops mattering long before this many steps (30 s × 2^30 is 1,000 years), and it keeps
// `base << steps` within a bigint in SQL and exact in a double here.
const maxDoublings = 30;

/**
 * Throws a `RangeError` naming the first invalid field of a rule: every field a positive safe integer,
 * `maxLockSeconds ≥ baseLockSeconds`, and nothing above a year (so SQL arithmetic cannot overflow).
 *
 * @param rule - The rule to check.
 * @example
 * ```ts
 * import { assertLoginGateRule, defaultLoginGateRules } from '@tollgate/core/license';
 * assertLoginGateRule(defaultLoginGateRules.account);
 * ```
 */
export function assertLoginGateRule(rule: LoginGateRule): void {
  const year = 366 * 86_400;
  for (const name of ['threshold', 'baseLockSeconds', 'maxLockSeconds', 'forgetAfterSeconds'] as const) {
    const value = rule[name];
    if (!Number.isSafeInteger(value) || value < 1 || value > year) throw new RangeError(`login gate ${name} must be an integer from 1 to ${year}`);
  }
  if (rule.maxLockSeconds < rule.baseLockSeconds) throw new RangeError('login gate maxLockSeconds must be at least baseLockSeconds');
}

/**
 * The lock a count of failures earns under `rule` (0 below the threshold).
 *
 * @param failures - The count after the charge.
 * @param rule - The gate rule.
 * @returns Lock length in seconds.
 * @example
 * ```ts
 * import { defaultLoginGateRules, loginGateLockSeconds } from '@tollgate/core/license';
 * loginGateLockSeconds(6, defaultLoginGateRules.account); // 60
 * ```
 */
export function loginGateLockSeconds(failures: number, rule: LoginGateRule): number {
  if (failures < rule.threshold) return 0;
  return Math.min(rule.maxLockSeconds, rule.baseLockSeconds * 2 ** Math.min(failures - rule.threshold, maxDoublings));
}

/**
 * One charge, the reference the SQL statement of the gate store mirrors exactly (integer seconds).
 *
 * @param state - The key's state, or `undefined` for a key never charged.
 * @param now - Unix seconds.
 * @param rule - The gate rule.
 * @returns Whether the attempt may proceed, and the state to store.
 * @example
 * ```ts
 * import { defaultLoginGateRules, loginGateCharge } from '@tollgate/core/license';
 * const first = loginGateCharge(undefined, 1_700_000_000, defaultLoginGateRules.account); // allowed, failures 1
 * ```
 */
export function loginGateCharge(state: LoginGateState | undefined, now: number, rule: LoginGateRule): LoginGateDecision {
  if (state !== undefined && state.lockedUntil > now) return { allowed: false, retryAfterSeconds: state.lockedUntil - now, state };
  const previous = state === undefined || now - state.lastChargeAt >= rule.forgetAfterSeconds ? 0 : state.failures;
  const failures = previous + 1;
  const lock = loginGateLockSeconds(failures, rule);
  return { allowed: true, state: { failures, lastChargeAt: now, lockedUntil: lock === 0 ? 0 : now + lock } };
}

/**
 * Gives one charge back (a correct password from a gated client address): the count drops by one, and
 * a lock stays only while the count is still at or above the threshold.
 *
 * @param state - The key's state.
 * @param rule - The gate rule.
 * @returns The state to store.
 * @example
 * ```ts
 * import { defaultLoginGateRules, loginGateCharge, loginGateRefund } from '@tollgate/core/license';
 * const charged = loginGateCharge(undefined, 0, defaultLoginGateRules.address);
 * loginGateRefund(charged.state, defaultLoginGateRules.address).failures; // 0
 * ```
 */
export function loginGateRefund(state: LoginGateState, rule: LoginGateRule): LoginGateState {
  const failures = Math.max(state.failures - 1, 0);
  return { failures, lastChargeAt: state.lastChargeAt, lockedUntil: failures >= rule.threshold ? state.lockedUntil : 0 };
}

const ipv4Pattern = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function expandIpv6(address: string): number[] | undefined {
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === '' ? [] : part.split(':'));
  const head = parse(halves[0] as string);
  const tail = halves.length === 2 ? parse(halves[1] as string) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return groups.map((group) => Number.parseInt(group, 16));
}

/**
 * The unit the per-address gate counts: an IPv4 address as is (IPv4-mapped IPv6 included), an IPv6
 * address by its /64 prefix (one host usually owns a whole /64, so counting single addresses would let
 * it rotate through 2^64 of them). Anything else, a zone or an embedded IPv4 tail, gives `undefined`
 * (the address gate is then skipped; the account gate still applies).
 *
 * @param remoteAddress - The socket address the HTTP adapter resolved.
 * @returns The grouped address, or `undefined`.
 * @example
 * ```ts
 * import { loginGateAddress } from '@tollgate/core/license';
 * loginGateAddress('2001:db8::1'); // '2001:db8:0:0::/64'
 * loginGateAddress('::ffff:192.0.2.1'); // '192.0.2.1'
 * ```
 */
export function loginGateAddress(remoteAddress: string | undefined): string | undefined {
  if (typeof remoteAddress !== 'string' || remoteAddress.length > 64) return undefined;
  const address = remoteAddress.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  const ipv4 = mapped === null ? address : (mapped[1] as string);
  if (ipv4Pattern.test(ipv4)) return ipv4;
  const groups = expandIpv6(address);
  if (groups === undefined) return undefined;
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}
