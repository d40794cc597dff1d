import { TollgateError, type TollgateErrorOptions } from '../../errors/base';

/**
 * Why migrations refused to run:
 * - `migration_list_invalid`: the code's list is wrong (bad file name, duplicate or missing number,
 *   empty file);
 * - `migration_database_ahead`: the database has a migration this code does not know (it was migrated
 *   by a newer release: running older code against it is unsafe);
 * - `migration_checksum_mismatch`: an applied migration's file changed since it was applied.
 */
export type MigrationErrorCode = 'migration_list_invalid' | 'migration_database_ahead' | 'migration_checksum_mismatch';

/**
 * Thrown by `defineMigrations` and `runMigrations` when applying migrations would be unsafe. Nothing
 * was applied when it is thrown. `details` names the domain, version and file involved.
 *
 * @example
 * ```ts
 * import { runMigrations, coreMigrations } from '@tollgate/core';
 * import { MigrationError } from '@tollgate/core/storage';
 * try { await runMigrations(sql, coreMigrations); }
 * catch (error) { if (error instanceof MigrationError) console.error(error.code, error.details); throw error; }
 * ```
 */
export class MigrationError extends TollgateError {
  override readonly name: string = 'MigrationError';
  declare readonly code: MigrationErrorCode;

  constructor(code: MigrationErrorCode, message: string, options: TollgateErrorOptions = {}) {
    super(code, message, options);
  }
}
