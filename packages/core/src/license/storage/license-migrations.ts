import { defineMigrations, type MigrationSet } from '../../storage/migrations/define-migrations';
import trustChainSql from './migrations/001_trust_chain.sql';
import feedTruncateGuardSql from './migrations/002_feed_truncate_guard.sql';
import adminFoundationSql from './migrations/003_admin_foundation.sql';
import auditSql from './migrations/004_audit.sql';
import catalogPoliciesSql from './migrations/005_catalog_policies.sql';
import accountsSql from './migrations/006_accounts.sql';
import licensesMachinesSql from './migrations/007_licenses_machines.sql';
import auditTruncateGuardSql from './migrations/008_audit_truncate_guard.sql';
import releasesSql from './migrations/009_releases.sql';
import clientProtocolSql from './migrations/010_client_protocol.sql';
import accountSessionsSql from './migrations/011_account_sessions.sql';
import trustChainHardeningSql from './migrations/012_trust_chain_hardening.sql';
import suspicionAlertsSql from './migrations/013_suspicion_alerts.sql';
import epochAdministrationSql from './migrations/014_epoch_administration.sql';
import assetKeysSql from './migrations/015_asset_keys.sql';
import integritySigningSql from './migrations/016_integrity_signing.sql';
import billingWebhooksSql from './migrations/017_billing_webhooks.sql';
import telemetrySql from './migrations/018_telemetry.sql';
import analyticsSql from './migrations/019_analytics.sql';
import analyticsSubscriptionsSql from './migrations/020_analytics_subscriptions.sql';
import dataSubjectRequestsSql from './migrations/021_data_subject_requests.sql';

/**
 * The license service's tables (`license_…`): the `license` migration domain. Run after
 * `coreMigrations`.
 *
 * @example
 * ```ts
 * import { coreMigrations, licenseMigrations, runMigrations } from '@tollgate/core';
 * await runMigrations(sql, coreMigrations);
 * await runMigrations(sql, licenseMigrations);
 * ```
 */
export const licenseMigrations: MigrationSet = defineMigrations('license', {
  '001_trust_chain.sql': trustChainSql,
  '002_feed_truncate_guard.sql': feedTruncateGuardSql,
  '003_admin_foundation.sql': adminFoundationSql,
  '004_audit.sql': auditSql,
  '005_catalog_policies.sql': catalogPoliciesSql,
  '006_accounts.sql': accountsSql,
  '007_licenses_machines.sql': licensesMachinesSql,
  '008_audit_truncate_guard.sql': auditTruncateGuardSql,
  '009_releases.sql': releasesSql,
  '010_client_protocol.sql': clientProtocolSql,
  '011_account_sessions.sql': accountSessionsSql,
  '012_trust_chain_hardening.sql': trustChainHardeningSql,
  '013_suspicion_alerts.sql': suspicionAlertsSql,
  '014_epoch_administration.sql': epochAdministrationSql,
  '015_asset_keys.sql': assetKeysSql,
  '016_integrity_signing.sql': integritySigningSql,
  '017_billing_webhooks.sql': billingWebhooksSql,
  '018_telemetry.sql': telemetrySql,
  '019_analytics.sql': analyticsSql,
  '020_analytics_subscriptions.sql': analyticsSubscriptionsSql,
  '021_data_subject_requests.sql': dataSubjectRequestsSql,
});
