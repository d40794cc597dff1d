import jobsSql from './core/001_jobs.sql';
import rateLimitsSql from './core/002_rate_limits.sql';
import { defineMigrations, type MigrationSet } from './define-migrations';

/**
 * Core's own tables (`tollgate_jobs`, `tollgate_rate_limits`): the `core` migration domain. Every server
 * runs them before its own domains.
 *
 * @example
 * ```ts
 * import { runMigrations, coreMigrations } from '@tollgate/core';
 * await runMigrations(sql, coreMigrations);
 * ```
 */
export const coreMigrations: MigrationSet = defineMigrations('core', {
  '001_jobs.sql': jobsSql,
  '002_rate_limits.sql': rateLimitsSql,
});
