import { readFileSync, statSync } from 'node:fs';
import { UsageError, type OptionValues } from './arguments';

/** Where the CLI finds its server and token. */
export interface Connection {
  readonly baseUrl: string;
  readonly token: string;
}

/**
 * Reads the token file: its content without the trailing newline editors and `echo` add. A file others
 * may read gets a warning (the token is a vendor's full Admin credential), not a refusal, so a token
 * mounted by a secret manager with broader modes still works.
 */
function readTokenFile(path: string, warn: (text: string) => void): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
    if ((statSync(path).mode & 0o077) !== 0 && process.platform !== 'win32') warn(`tollgate-admin: warning: ${path} is readable by other users; chmod 600 it.\n`);
  } catch (error) {
    throw new UsageError(`Cannot read --token-file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`);
  }
  const token = text.replace(/\r?\n$/, '');
  if (token.length === 0) throw new UsageError(`--token-file ${path} is empty.`);
  if (/\s/.test(token)) throw new UsageError(`--token-file ${path} holds more than one line or whitespace; it must hold only the token.`);
  return token;
}

/**
 * Resolves the server URL (`--url`, else `TOLLGATE_ADMIN_URL`) and the token (`--token-file`, else
 * `TOLLGATE_ADMIN_TOKEN`). The token never comes from a flag value (see `refuseTokenFlag`) and is never
 * printed, not even in these errors.
 *
 * @param values - Parsed options.
 * @param env - The environment.
 * @param warn - Writes a warning to stderr.
 * @returns The connection.
 * @throws UsageError when either is missing or malformed.
 */
export function resolveConnection(values: OptionValues, env: Readonly<Record<string, string | undefined>>, warn: (text: string) => void): Connection {
  const url = typeof values['url'] === 'string' ? values['url'] : env['TOLLGATE_ADMIN_URL'];
  if (url === undefined || url === '') throw new UsageError('No server URL: pass --url <url> or set TOLLGATE_ADMIN_URL.');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url is not a URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError('--url must be an http or https URL.');
  if (parsed.username !== '' || parsed.password !== '') throw new UsageError('--url must not carry credentials; the token comes from TOLLGATE_ADMIN_TOKEN or --token-file.');

  const tokenFile = values['token-file'];
  const token = typeof tokenFile === 'string' ? readTokenFile(tokenFile, warn) : env['TOLLGATE_ADMIN_TOKEN']?.trim();
  if (token === undefined || token === '') throw new UsageError('No Admin token: set TOLLGATE_ADMIN_TOKEN or pass --token-file <path>.');
  return { baseUrl: url, token };
}
