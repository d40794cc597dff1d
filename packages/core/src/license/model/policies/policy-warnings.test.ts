import { describe, expect, it } from 'vitest';
import type { PolicyDocument } from './policy-document';
import { policyWarningCodes, policyWarnings } from './policy-warnings';
import { fullPolicy } from '../../../../test/support/policy-fixtures';

const codes = (policy: PolicyDocument) => policyWarnings(policy).map((warning) => warning.split(':')[0]);

describe('policyWarnings', () => {
  it('finds nothing risky in a plain policy', () => {
    expect(policyWarnings(fullPolicy)).toEqual([]);
  });

  it.each([
    ['long_grace', { validation_grace_seconds: 30 * 86_400 + 1 }],
    ['long_validation_interval', { validation_interval_seconds: 30 * 86_400 + 1 }],
    ['heartbeat_shorter_than_validation', { heartbeat_window_seconds: 3_600 }],
    ['offline_many_seats', { seats: 101 }],
    ['grace_without_window', { expiry_behavior: 'grace', fallback_tier: null, validation_grace_seconds: 0 }],
    ['fallback_same_as_tier', { fallback_tier: 'pro' }],
    ['interval_longer_than_duration', { duration_seconds: 3_600 }],
  ] as const)('warns %s', (code, change) => {
    const warnings = policyWarnings({ ...fullPolicy, ...change });
    expect(codes({ ...fullPolicy, ...change })).toEqual([code]);
    expect(warnings[0]).toMatch(new RegExp(`^${code}: \\S.+`));
  });

  it.each([
    ['long_grace', { validation_grace_seconds: 30 * 86_400 }],
    ['long_validation_interval', { validation_interval_seconds: 30 * 86_400 }],
    ['heartbeat_shorter_than_validation', { heartbeat_window_seconds: 86_400 }],
    ['offline_many_seats', { seats: 100 }],
    ['offline_many_seats', { seats: 5_000, offline_allowed: false }],
    ['grace_without_window', { expiry_behavior: 'grace', fallback_tier: null, validation_grace_seconds: 1 }],
    ['fallback_same_as_tier', { fallback_tier: 'basic' }],
    ['interval_longer_than_duration', { duration_seconds: 86_400 }],
    ['interval_longer_than_duration', { duration_seconds: null }],
  ] as const)('stays quiet on the legal side of %s (%j)', (_code, change) => {
    expect(policyWarnings({ ...fullPolicy, ...change })).toEqual([]);
  });

  it('lists several warnings in the documented order', () => {
    const risky: PolicyDocument = { ...fullPolicy, seats: 500, validation_grace_seconds: 40 * 86_400, heartbeat_window_seconds: 600, fallback_tier: 'pro' };
    expect(codes(risky)).toEqual(['long_grace', 'heartbeat_shorter_than_validation', 'offline_many_seats', 'fallback_same_as_tier']);
    expect(policyWarningCodes).toHaveLength(7);
  });
});
