import { defineMigrations, type MigrationSet } from '../../storage/migrations/define-migrations';
import trustChainSql from './migrations/001_trust_chain.sql';
import feedTruncateGuardSql from './migrations/002_feed_truncate_guard.sql';

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
});
