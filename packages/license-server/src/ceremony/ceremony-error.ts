import { TollgateError, type TollgateErrorOptions } from '@tollgate/core';

/**
 * Why a key-ceremony step refused to run:
 * - `file_exists`: the output file exists (key files are never overwritten);
 * - `insecure_permissions`: a key file is readable by group or others;
 * - `invalid_key_file`: a key file is not what the CLI wrote;
 * - `database_in_use`: the embedded database is open in a running server;
 * - `missing_configuration`: no master key or root pins where they are required;
 * - `invalid_argument`: a malformed command-line value.
 */
export type CeremonyErrorCode = 'file_exists' | 'insecure_permissions' | 'invalid_key_file' | 'database_in_use' | 'missing_configuration' | 'invalid_argument';

/**
 * A refused ceremony step; the CLI prints its message and exits with status 1.
 *
 * @example
 * ```ts
 * import { CeremonyError } from '@tollgate/license-server';
 * try { createRootKeyFile('root.key'); } catch (e) { if (e instanceof CeremonyError && e.code === 'file_exists') console.error(e.message); }
 * ```
 */
export class CeremonyError extends TollgateError {
  override readonly name = 'CeremonyError';
  declare readonly code: CeremonyErrorCode;

  constructor(code: CeremonyErrorCode, message: string, options?: TollgateErrorOptions) {
    super(code, message, options);
  }
}
