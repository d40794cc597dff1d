import { ConfigError, hexEncode, parseGatewaySecret, randomBytes, gatewaySecretBytes } from '@tollgate/core';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Where a generated gateway secret is kept: `<dataDir>/gateway/secret.key` (hex, mode 0600).
 *
 * @param dataDir - The gateway's data directory.
 * @returns The file path.
 * @example
 * ```ts
 * import { gatewaySecretPath } from '@tollgate/gateway-server';
 * gatewaySecretPath('.tollgate'); // '.tollgate/gateway/secret.key'
 * ```
 */
export function gatewaySecretPath(dataDir: string): string {
  return join(dataDir, 'gateway', 'secret.key');
}

/** Where {@link resolveGatewaySecret} warns. */
export interface SecretWarnings {
  warn(object: object, message: string): void;
}

/**
 * The gateway's server secret: `GATEWAY_SECRET` when configured; otherwise, outside production, the one
 * kept in `<dataDir>/gateway/secret.key`, generated (32 random bytes, hex, file mode 0600) on first
 * start. Without a configured secret a warning is logged on every start: several instances each
 * generating their own would not recognise each other's API keys or cursors.
 *
 * @param options - The configured secret, production flag, data directory and logger.
 * @returns The 32 secret bytes.
 * @throws ConfigError in production without `GATEWAY_SECRET`, or when the kept file is not a valid secret.
 * @example
 * ```ts
 * import { loadGatewayConfig, resolveGatewaySecret } from '@tollgate/gateway-server';
 * const config = loadGatewayConfig(process.env);
 * const secret = resolveGatewaySecret({ ...config, logger: console });
 * ```
 */
export function resolveGatewaySecret(options: { secret: Uint8Array | undefined; production: boolean; dataDir: string; logger: SecretWarnings }): Uint8Array {
  if (options.secret !== undefined) return options.secret;
  if (options.production) {
    throw new ConfigError([{ variable: 'GATEWAY_SECRET', expected: '32 random bytes as hex or base64 (required when NODE_ENV=production)', received: undefined }]);
  }
  const path = gatewaySecretPath(options.dataDir);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let generated = false;
  try {
    // `wx`: never overwrite, so two processes starting at once keep the first one's secret.
    writeFileSync(path, `${hexEncode(randomBytes(gatewaySecretBytes))}\n`, { mode: 0o600, flag: 'wx' });
    generated = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  let secret: Uint8Array;
  try {
    secret = parseGatewaySecret(readFileSync(path, 'utf8'));
  } catch {
    throw new ConfigError([{ variable: 'GATEWAY_SECRET', expected: `a valid secret in ${path} (or set GATEWAY_SECRET)`, received: undefined }]);
  }
  options.logger.warn(
    { path },
    generated
      ? 'GATEWAY_SECRET is not set: generated a gateway secret and kept it in the data directory. Set GATEWAY_SECRET in production and when running several instances.'
      : 'GATEWAY_SECRET is not set: using the gateway secret kept in the data directory. Set GATEWAY_SECRET in production and when running several instances.',
  );
  return secret;
}
