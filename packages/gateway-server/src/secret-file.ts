import { ConfigError, hexEncode, parseGatewaySecret, gatewaySecretBytes } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import { join } from 'node:path';
import { keptSecret, type SecretWarnings } from './kept-secret';

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

/**
 * The gateway's server secret: `GATEWAY_SECRET` when configured; otherwise, outside production, the one
 * kept in `<dataDir>/gateway/secret.key`, generated (32 random bytes, hex, file mode 0600) on first
 * start (see `keptSecret`). Without a configured secret a warning is logged on every start: several
 * instances each generating their own would not recognise each other's API keys or cursors.
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
  return keptSecret({
    path: gatewaySecretPath(options.dataDir),
    variable: 'GATEWAY_SECRET',
    what: 'gateway secret',
    generate: () => hexEncode(randomBytes(gatewaySecretBytes)),
    parse: (text) => {
      try {
        return parseGatewaySecret(text);
      } catch {
        return undefined;
      }
    },
    logger: options.logger,
  });
}
