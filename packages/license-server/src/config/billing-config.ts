import { ConfigError } from '@tollgate/core';
import { envBoolean, envInteger, parseEnv, type EnvRecord } from '@tollgate/core/config';
import type { WebhookProvider, LicenseBillingConfig } from '@tollgate/core/license';

/** Settings of the billing feature (the type lives in core: `LicenseBillingConfig`). */
export type BillingConfig = LicenseBillingConfig;

const secretVariables: Readonly<Record<WebhookProvider, string>> = {
  stripe: 'BILLING_STRIPE_SECRETS',
  paddle: 'BILLING_PADDLE_SECRETS',
  lemonsqueezy: 'BILLING_LEMONSQUEEZY_SECRETS',
};

// Printable ASCII without commas or spaces, 6 to 256 characters (Lemon Squeezy secrets are 6–40).
const secretPattern = /^[\x21-\x2b\x2d-\x7e]{6,256}$/;
const maxSecretsPerProvider = 4;

/** The secrets of one variable, or a problem that never repeats the value (it is a secret). */
function readSecrets(variable: string, raw: string | undefined, problems: ConfigError['problems']): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const secrets = raw.split(',').map((secret) => secret.trim());
  if (secrets.length > maxSecretsPerProvider || !secrets.every((secret) => secretPattern.test(secret))) {
    problems.push({ variable, expected: `1 to ${maxSecretsPerProvider} comma-separated secrets of 6 to 256 printable characters (value not shown)`, received: undefined });
    return [];
  }
  return [...new Set(secrets)];
}

/**
 * Reads the billing settings; throws `ConfigError` with every problem found (secret values are never
 * part of the message).
 *
 * @param env - The process environment.
 * @returns The settings.
 * @example
 * ```ts
 * const billing = parseBillingConfig({ BILLING_STRIPE_SECRETS: 'whsec_old,whsec_new' });
 * billing.secrets.stripe; // ['whsec_old', 'whsec_new']
 * ```
 */
export function parseBillingConfig(env: EnvRecord): BillingConfig {
  const problems: ConfigError['problems'] = [];
  const secrets = {
    stripe: readSecrets(secretVariables.stripe, env[secretVariables.stripe], problems),
    paddle: readSecrets(secretVariables.paddle, env[secretVariables.paddle], problems),
    lemonsqueezy: readSecrets(secretVariables.lemonsqueezy, env[secretVariables.lemonsqueezy], problems),
  };
  let rest: { BILLING_DUNNING_GRACE_DAYS: number; BILLING_WORKER: boolean; BILLING_POLL_SECONDS: number; BILLING_EVENT_RETENTION_DAYS: number } | undefined;
  try {
    rest = parseEnv(env, {
      BILLING_DUNNING_GRACE_DAYS: envInteger({ min: 0, max: 90, default: 7 }),
      BILLING_WORKER: envBoolean({ default: true }),
      BILLING_POLL_SECONDS: envInteger({ min: 1, max: 3600, default: 5 }),
      BILLING_EVENT_RETENTION_DAYS: envInteger({ min: 7, max: 3650, default: 30 }),
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  if (problems.length > 0 || rest === undefined) throw new ConfigError(problems);
  return {
    secrets,
    dunningGraceSeconds: rest.BILLING_DUNNING_GRACE_DAYS * 86_400,
    worker: rest.BILLING_WORKER,
    pollIntervalMs: rest.BILLING_POLL_SECONDS * 1000,
    eventRetentionMs: rest.BILLING_EVENT_RETENTION_DAYS * 86_400_000,
  };
}
