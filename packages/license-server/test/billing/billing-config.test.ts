/** The billing settings: secrets per provider (several while rolling), defaults, and errors that never show a secret. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '@tollgate/core';
import { loadLicenseConfig } from '@tollgate/license-server';
import { parseBillingConfig } from '../../src/config/billing-config';

describe('parseBillingConfig', () => {
  it('reads several secrets per provider and the defaults', () => {
    const config = parseBillingConfig({ BILLING_STRIPE_SECRETS: 'whsec_old, whsec_new', BILLING_LEMONSQUEEZY_SECRETS: 'lemon-secret' });
    expect(config).toEqual({
      secrets: { stripe: ['whsec_old', 'whsec_new'], paddle: [], lemonsqueezy: ['lemon-secret'] },
      dunningGraceSeconds: 7 * 86_400,
      worker: true,
      pollIntervalMs: 5_000,
      eventRetentionMs: 30 * 86_400_000,
    });
    expect(parseBillingConfig({ BILLING_EVENT_RETENTION_DAYS: '7' }).eventRetentionMs).toBe(7 * 86_400_000);
    // Shorter than a week would drop the dedupe of events the providers may still redeliver.
    expect(() => parseBillingConfig({ BILLING_EVENT_RETENTION_DAYS: '6' })).toThrow(ConfigError);
    expect(parseBillingConfig({ BILLING_DUNNING_GRACE_DAYS: '0', BILLING_WORKER: 'false', BILLING_POLL_SECONDS: '30' })).toMatchObject({ dunningGraceSeconds: 0, worker: false, pollIntervalMs: 30_000 });
  });

  it('refuses malformed secrets without repeating them, and reports every problem at once', () => {
    const secret = 'whsec_has a space';
    let error: unknown;
    try {
      loadLicenseConfig({ BILLING_STRIPE_SECRETS: secret, BILLING_PADDLE_SECRETS: 'short', BILLING_DUNNING_GRACE_DAYS: '365' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.map((problem) => problem.variable);
    expect(problems).toEqual(expect.arrayContaining(['BILLING_STRIPE_SECRETS', 'BILLING_PADDLE_SECRETS', 'BILLING_DUNNING_GRACE_DAYS']));
    expect((error as ConfigError).message).not.toContain(secret);
    expect((error as ConfigError).message).not.toContain('short');
    expect(() => parseBillingConfig({ BILLING_LEMONSQUEEZY_SECRETS: 'a1b2c3,d4e5f6,g7h8i9,j0k1l2,m3n4o5' })).toThrow(ConfigError);
  });
});
