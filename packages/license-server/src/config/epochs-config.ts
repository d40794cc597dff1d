import { envInteger, envString, parseEnv, type EnvRecord } from '@tollgate/core/config';
import type { LicenseEpochsConfig } from '@tollgate/core/license';

/** Settings of the epochs feature (the type lives in core: `LicenseEpochsConfig`). */
export type EpochsConfig = LicenseEpochsConfig;

/**
 * Reads the epochs settings; throws `ConfigError` with every problem found.
 *
 * | Variable | Default | Meaning |
 * |---|---|---|
 * | `LICENSE_EPOCH_REVOKE_APPROVAL_SECONDS` | 3600 | window of the second confirmation of an epoch revocation |
 * | `LICENSE_EPOCH_ADMIN_VENDORS` | single-vendor servers: that vendor | vendors administering global epochs |
 *
 * @param env - The process environment.
 * @returns The settings.
 *
 * @example
 * ```ts
 * import { parseEpochsConfig } from '@tollgate/license-server';
 * const { revokeApprovalSeconds } = parseEpochsConfig({ LICENSE_EPOCH_REVOKE_APPROVAL_SECONDS: '900' });
 * ```
 */
export function parseEpochsConfig(env: EnvRecord): EpochsConfig {
  const parsed = parseEnv(env, {
    LICENSE_EPOCH_REVOKE_APPROVAL_SECONDS: envInteger({ min: 60, max: 604_800, default: 3600 }),
    LICENSE_EPOCH_ADMIN_VENDORS: envString({ optional: true, pattern: /^[0-9a-f]{32}(?:,[0-9a-f]{32}){0,63}$/, expected: '1 to 64 comma-separated vendor ids (32 lower-case hex digits)' }),
  });
  return {
    revokeApprovalSeconds: parsed.LICENSE_EPOCH_REVOKE_APPROVAL_SECONDS,
    globalEpochVendors: parsed.LICENSE_EPOCH_ADMIN_VENDORS === undefined ? undefined : parsed.LICENSE_EPOCH_ADMIN_VENDORS.split(','),
  };
}
