// The license client's pure decisions: standing of stored artifacts at a time, how a failure is sorted
// (grace or fail closed), and the retry and refresh delays.
import { describe, expect, it } from 'vitest';
import { ArtifactError, type MachineCredential, type ValidationTicket } from '@tollgate/core/license';
import { classifyFailure, LicenseRequestError, refreshDelayMs, ResponseMismatchError, retryDelayMs, RevocationFeedError, standingAt } from '@tollgate/client-sdk';

const credential = { refreshAfter: 1_000, graceSeconds: 500, issuedAt: 0 } as MachineCredential;
const ticket = { refreshAfter: 5_000, graceSeconds: 100, serverTime: 4_000 } as ValidationTicket;

describe('standingAt', () => {
  it('is active before refreshAfter, in grace until the grace window ends, then locked', () => {
    expect(standingAt(credential, undefined, 999)).toMatchObject({ state: 'active', refreshAt: 1_000, graceEndsAt: 1_500 });
    expect(standingAt(credential, undefined, 1_000).state).toBe('grace');
    expect(standingAt(credential, undefined, 1_499).state).toBe('grace');
    expect(standingAt(credential, undefined, 1_500)).toMatchObject({ state: 'locked', reason: 'grace_over' });
  });

  it('takes the last ticket over the credential, and any expiry ends it', () => {
    expect(standingAt(credential, ticket, 4_999).state).toBe('active');
    expect(standingAt(credential, ticket, 5_100)).toMatchObject({ state: 'locked', reason: 'grace_over' });
    expect(standingAt({ ...credential, expiresAt: 900 }, undefined, 900)).toMatchObject({ state: 'locked', reason: 'expired' });
    expect(standingAt(credential, { ...ticket, expiresAt: 4_500 }, 4_500)).toMatchObject({ state: 'locked', reason: 'expired' });
  });
});

describe('classifyFailure', () => {
  it('keeps grace for network failures, 5xx and 429 (with Retry-After), and fails closed on refusals and bad answers', () => {
    expect(classifyFailure(new LicenseRequestError('network_error', 'down'))).toEqual({ kind: 'unreachable', retryAfterSeconds: undefined });
    expect(classifyFailure(new LicenseRequestError(5000, 'busy', { status: 503, retryAfterSeconds: 1 }))).toEqual({ kind: 'unreachable', retryAfterSeconds: 1 });
    expect(classifyFailure(new LicenseRequestError(1005, 'slow down', { status: 429, retryAfterSeconds: 30 }))).toEqual({ kind: 'unreachable', retryAfterSeconds: 30 });
    expect(classifyFailure(new LicenseRequestError(1000, 'no', { status: 401 }))).toEqual({ kind: 'refused' });
    expect(classifyFailure(new LicenseRequestError(1009, 'compromised', { status: 403 }))).toEqual({ kind: 'refused' });
    expect(classifyFailure(new ResponseMismatchError('nonce_mismatch', 'replayed answer'))).toEqual({ kind: 'refused' });
    expect(classifyFailure(new ArtifactError('bad_signature', 'forged'))).toEqual({ kind: 'refused' });
    expect(classifyFailure(new RevocationFeedError('rollback', 'feed went back'))).toEqual({ kind: 'refused' });
    expect(classifyFailure(new RevocationFeedError('stale', 'offline', { cause: new LicenseRequestError('network_error', 'down') }))).toMatchObject({ kind: 'unreachable' });
  });
});

describe('classifyFailure of an unknown signing epoch', () => {
  const unknown = (details: Record<string, unknown>, cause?: unknown) => new ArtifactError('unknown_key', 'No verified epoch 00ff00ff00ff00ff.', { details: { epochId: '00ff00ff00ff00ff', ...details }, cause });

  it('fails closed when the server’s current keyset does not list it either, or when no lookup was made', () => {
    expect(classifyFailure(unknown({ resync: 'synced' }))).toEqual({ kind: 'refused' });
    expect(classifyFailure(unknown({}))).toEqual({ kind: 'refused' });
  });

  it('keeps grace and asks again when the keyset could not be refetched: the rate limit, or an unreachable server', () => {
    expect(classifyFailure(unknown({ resync: 'rate_limited', retryAfterSeconds: 12 }))).toEqual({ kind: 'unreachable', retryAfterSeconds: 12 });
    expect(classifyFailure(unknown({ resync: 'unreachable' }, new LicenseRequestError('network_error', 'down')))).toEqual({ kind: 'unreachable', retryAfterSeconds: undefined });
    expect(classifyFailure(unknown({ resync: 'unreachable' }, new LicenseRequestError(5000, 'busy', { status: 503, retryAfterSeconds: 2 })))).toEqual({ kind: 'unreachable', retryAfterSeconds: 2 });
  });
});

describe('delays', () => {
  it('backs off exponentially with equal jitter, capped at 15 minutes, never before Retry-After', () => {
    expect(retryDelayMs(1, 0, undefined)).toBe(2_500);
    expect(retryDelayMs(1, 0.999_999, undefined)).toBeCloseTo(5_000, 0);
    expect(retryDelayMs(3, 0, undefined)).toBe(10_000);
    expect(retryDelayMs(40, 1, undefined)).toBe(15 * 60_000);
    expect(retryDelayMs(1, 0, 120)).toBe(120_000);
  });

  it('schedules the refresh from the artifact’s own server time, up to 10 % early, at least 1 s', () => {
    expect(refreshDelayMs(5_000, 4_000, 0)).toBe(1_000_000);
    expect(refreshDelayMs(5_000, 4_000, 1)).toBe(900_000);
    expect(refreshDelayMs(5_000, 6_000, 0.5)).toBe(1_000);
  });
});
