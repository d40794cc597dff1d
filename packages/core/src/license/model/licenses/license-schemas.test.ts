import { describe, expect, it } from 'vitest';
import { AdminError } from '../../../errors/admin';
import { parseAdminInput } from '../../admin/admin-input';
import { issueLicensesSchema, patchLicenseSchema, revokeBodySchema, versionScopeSchema } from './license-schemas';

const policyId = 'ab'.repeat(16);

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof AdminError && error.code === 'invalid_request') return error.message;
    throw error;
  }
  throw new Error('accepted');
}

describe('license request schemas', () => {
  it('take an issue request with defaults and a parsed expiry', () => {
    const input = parseAdminInput(issueLicensesSchema, { policy_id: policyId, count: 3, expires_at: '2030-01-02T03:04:05Z' });
    expect(input).toEqual({ policy_id: policyId, count: 3, expires_at: new Date('2030-01-02T03:04:05Z'), metadata: {} });
    expect(parseAdminInput(issueLicensesSchema, { policy_id: policyId, count: 1, expires_at: null }).expires_at).toBeNull();
  });

  it('refuse counts outside 1–100, unknown fields and zone-less or impossible dates', () => {
    expect(refusal(() => parseAdminInput(issueLicensesSchema, { policy_id: policyId, count: 0 }))).toMatch(/count/);
    // An array is not an empty object: valibot's object schemas alone would accept `[]` for an all-optional body.
    expect(refusal(() => parseAdminInput(revokeBodySchema, []))).toMatch(/not an array/);
    expect(refusal(() => parseAdminInput(issueLicensesSchema, { policy_id: policyId, count: 101 }))).toMatch(/count/);
    expect(refusal(() => parseAdminInput(issueLicensesSchema, { policy_id: policyId, count: 1.5 }))).toMatch(/count/);
    expect(refusal(() => parseAdminInput(issueLicensesSchema, { policy_id: policyId, count: 1, key: 'mine' }))).toMatch(/key/);
    expect(refusal(() => parseAdminInput(issueLicensesSchema, { policy_id: policyId, count: 1, expires_at: '2030-01-02T03:04:05' }))).toMatch(/expires_at/);
    expect(refusal(() => parseAdminInput(issueLicensesSchema, { policy_id: policyId, count: 1, expires_at: '2030-13-45T03:04:05Z' }))).toMatch(/expires_at/);
    expect(refusal(() => parseAdminInput(issueLicensesSchema, { policy_id: 'AB'.repeat(16), count: 1 }))).toMatch(/policy_id/);
  });

  it('bound metadata: 50 keys of at most 64 characters, string values of at most 500', () => {
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, n) => [`k${n}`, 'v'.repeat(500)]));
    expect(parseAdminInput(issueLicensesSchema, { policy_id: policyId, count: 1, metadata: fifty }).metadata).toEqual(fifty);
    expect(refusal(() => parseAdminInput(issueLicensesSchema, { policy_id: policyId, count: 1, metadata: { ...fifty, k50: 'x' } }))).toMatch(/50 keys/);
    expect(refusal(() => parseAdminInput(issueLicensesSchema, { policy_id: policyId, count: 1, metadata: { a: 'v'.repeat(501) } }))).toMatch(/500/);
    expect(refusal(() => parseAdminInput(issueLicensesSchema, { policy_id: policyId, count: 1, metadata: { a: 1 } }))).toMatch(/strings/);
    expect(refusal(() => parseAdminInput(issueLicensesSchema, { policy_id: policyId, count: 1, metadata: { ['k'.repeat(65)]: 'v' } }))).toMatch(/64/);
  });

  it('refuse status revoked in a patch, pointing at the revoke route, and an empty patch', () => {
    expect(refusal(() => parseAdminInput(patchLicenseSchema, { status: 'revoked' }))).toMatch(/revoke/);
    expect(refusal(() => parseAdminInput(patchLicenseSchema, { status: 'expired' }))).toMatch(/active or suspended/);
    expect(refusal(() => parseAdminInput(patchLicenseSchema, {}))).toMatch(/at least one/);
    expect(parseAdminInput(patchLicenseSchema, { seats_override: null, entitlement_overrides: { add: ['b', 'a', 'b'] } })).toEqual({
      seats_override: null,
      entitlement_overrides: { add: ['a', 'b'], remove: [] },
    });
    expect(refusal(() => parseAdminInput(patchLicenseSchema, { entitlement_overrides: { add: ['a'], remove: ['a'] } }))).toMatch(/both added and removed/);
  });

  it('take SemVer version scopes whose min is below max_exclusive', () => {
    expect(parseAdminInput(versionScopeSchema, { min: '1.0.0', max_exclusive: '2.0.0-rc.1' })).toEqual({ min: '1.0.0', max_exclusive: '2.0.0-rc.1' });
    expect(parseAdminInput(versionScopeSchema, null)).toBeNull();
    expect(refusal(() => parseAdminInput(versionScopeSchema, { min: '2.0.0', max_exclusive: '2.0.0' }))).toMatch(/below/);
    expect(refusal(() => parseAdminInput(versionScopeSchema, { min: 'v1' }))).toMatch(/SemVer/);
  });

  it('take a revoke body with an optional u8 reason', () => {
    expect(parseAdminInput(revokeBodySchema, undefined)).toEqual({});
    expect(parseAdminInput(revokeBodySchema, { reason: 255 })).toEqual({ reason: 255 });
    expect(refusal(() => parseAdminInput(revokeBodySchema, { reason: 256 }))).toMatch(/0 to 255/);
    expect(refusal(() => parseAdminInput(revokeBodySchema, { why: 'x' }))).toMatch(/only reason/);
  });
});
