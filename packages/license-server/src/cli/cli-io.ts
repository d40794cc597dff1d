import type { Clock } from '@tollgate/core';
import type { EnvRecord } from '@tollgate/core/config';

/**
 * Where the CLI reads its environment and writes its output (the process's, or a test's).
 *
 * @example
 * ```ts
 * import { runLicenseCli, type CliIo } from '@tollgate/license-server';
 * const io: CliIo = { env: process.env, stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) };
 * await runLicenseCli(['help'], io);
 * ```
 */
export interface CliIo {
  env: EnvRecord;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  clock?: Clock;
}
