import { ConfigError } from '@tollgate/core';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Where a kept secret's warning goes. */
export interface SecretWarnings {
  warn(object: object, message: string): void;
}

/** Options of {@link keptSecret}. */
export interface KeptSecretOptions<Secret> {
  /** The file, created with its directory when missing (directory 0700, file 0600). */
  path: string;
  /** The variable that configures the secret instead (named in the warning and the error). */
  variable: string;
  /** What it is, for the warning: `gateway secret`, `gateway signing key`. */
  what: string;
  /** A new secret as the file's text (without the trailing newline). */
  generate: () => string;
  /** The secret in the file's text, or `undefined` when the text is not a valid one. */
  parse: (text: string) => Secret | undefined;
  logger: SecretWarnings;
}

/**
 * A secret generated once and kept in a file of the data directory, for development when its variable
 * is not set: created with `wx` (never overwritten, so two processes starting at once keep the first
 * one's secret) and mode 0600 (tightened again if someone loosened it), then read back. Every start
 * logs a warning naming the variable (instances must share one configured secret); the secret itself
 * is never logged.
 *
 * @param options - File, variable, generator, parser and logger.
 * @returns The secret in the file.
 * @throws ConfigError naming the variable when the file does not hold a valid secret.
 * @example
 * ```ts
 * import { generatePrivateKey } from 'viem/accounts';
 * const key = keptSecret({ path: '.tollgate/gateway/signing.key', variable: 'GATEWAY_SIGNING_KEY', what: 'gateway signing key',
 *   generate: generatePrivateKey, parse: (text) => (isSigningKey(text) ? text : undefined), logger: console });
 * ```
 */
export function keptSecret<Secret>(options: KeptSecretOptions<Secret>): Secret {
  const { path, variable, what } = options;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let generated = false;
  try {
    writeFileSync(path, `${options.generate()}\n`, { mode: 0o600, flag: 'wx' });
    generated = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  const secret = options.parse(readFileSync(path, 'utf8').trim());
  if (secret === undefined) throw new ConfigError([{ variable, expected: `a valid ${what} in ${path} (or set ${variable})`, received: undefined }]);
  options.logger.warn(
    { path },
    `${variable} is not set: ${generated ? `generated the ${what} and kept it` : `using the ${what} kept`} in the data directory. Set ${variable} in production and when running several instances.`,
  );
  return secret;
}
