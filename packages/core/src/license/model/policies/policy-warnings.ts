import type { PolicyDocument } from './policy-document';

const thirtyDays = 30 * 86_400;
const manyOfflineSeats = 100;

type PolicyFields = Omit<PolicyDocument, 'id'>;

/** One warning rule: its stable code, when it fires, and what to tell the operator. */
interface WarningRule {
  readonly code: string;
  readonly applies: (policy: PolicyFields) => boolean;
  readonly message: (policy: PolicyFields) => string;
}

// In the order answers list them; docs/policies.md "Warnings" explains each.
const rules: readonly WarningRule[] = [
  {
    code: 'long_grace',
    applies: (p) => p.validation_grace_seconds > thirtyDays,
    message: (p) => `validation_grace_seconds is ${p.validation_grace_seconds} (over 30 days): a revoked or expired license keeps working offline that long`,
  },
  {
    code: 'long_validation_interval',
    applies: (p) => p.validation_interval_seconds > thirtyDays,
    message: (p) => `validation_interval_seconds is ${p.validation_interval_seconds} (over 30 days): revocations and tier changes reach a device only at its next validation`,
  },
  {
    code: 'heartbeat_shorter_than_validation',
    applies: (p) => p.heartbeat_window_seconds !== null && p.heartbeat_window_seconds < p.validation_interval_seconds,
    message: (p) =>
      `heartbeat_window_seconds (${p.heartbeat_window_seconds}) is shorter than validation_interval_seconds (${p.validation_interval_seconds}): a machine that misses heartbeats frees its seat while its validation ticket still runs, so another machine can take it and more machines than seats run at once until those tickets expire`,
  },
  {
    code: 'offline_many_seats',
    applies: (p) => p.offline_allowed && p.seats > manyOfflineSeats,
    message: (p) => `offline_allowed with ${p.seats} seats (over ${manyOfflineSeats}): offline machines never heartbeat or deactivate online, so a large pool can only be reclaimed by revocation`,
  },
  {
    code: 'grace_without_window',
    applies: (p) => p.expiry_behavior === 'grace' && p.validation_grace_seconds === 0,
    message: () => 'expiry_behavior is "grace" but validation_grace_seconds is 0: licenses stop at expiry exactly as with "deny"',
  },
  {
    code: 'fallback_same_as_tier',
    applies: (p) => p.expiry_behavior === 'fallback' && p.fallback_tier === p.tier,
    message: (p) => `fallback_tier equals tier ("${p.fallback_tier}"): an expired license keeps every entitlement, so expiry has no effect`,
  },
  {
    code: 'interval_longer_than_duration',
    applies: (p) => p.duration_seconds !== null && p.validation_interval_seconds > p.duration_seconds,
    message: (p) =>
      `validation_interval_seconds (${p.validation_interval_seconds}) exceeds duration_seconds (${p.duration_seconds}): a device may not validate before its license expires and can run past expiry until its next validation`,
  },
];

/** Every warning code, in answer order (docs/policies.md "Warnings"). */
export const policyWarningCodes: readonly string[] = rules.map((rule) => rule.code);

/**
 * The warnings of a valid Policy document: settings that are legal but risky. Each is a string
 * `"<code>: <message>"` whose code is one of {@link policyWarningCodes}; the list is in that order, so
 * equal documents give equal lists. Warnings never refuse a document.
 *
 * @param policy - A document that passed the Policy schema.
 * @returns The warnings, empty for a policy without risky settings.
 * @example
 * ```ts
 * import { policyWarnings } from '@tollgate/core/license';
 * policyWarnings({ ...policy, validation_grace_seconds: 40 * 86_400 }); // ['long_grace: validation_grace_seconds is 3456000 …']
 * ```
 */
export function policyWarnings(policy: PolicyFields): string[] {
  return rules.filter((rule) => rule.applies(policy)).map((rule) => `${rule.code}: ${rule.message(policy)}`);
}
