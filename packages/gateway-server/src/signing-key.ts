import { ConfigError } from '@tollgate/core';
import { join } from 'node:path';
import { generatePrivateKey } from 'viem/accounts';
import { isSigningKey } from './config-parsers';
import { keptSecret, type SecretWarnings } from './kept-secret';

/**
 * Where a generated gateway signing key is kept: `<dataDir>/gateway/signing.key` (0x hex, mode 0600).
 *
 * @param dataDir - The gateway's data directory.
 * @returns The file path.
 * @example
 * ```ts
 * import { gatewaySigningKeyPath } from '@tollgate/gateway-server';
 * gatewaySigningKeyPath('.tollgate'); // '.tollgate/gateway/signing.key'
 * ```
 */
export function gatewaySigningKeyPath(dataDir: string): string {
  return join(dataDir, 'gateway', 'signing.key');
}

/**
 * The gateway's secp256k1 signing key (offers, receipts, x402 artifacts): `GATEWAY_SIGNING_KEY` when
 * configured; otherwise, outside production, the one kept in `<dataDir>/gateway/signing.key`, generated
 * on first start (file mode 0600, see `keptSecret`) and kept, so receipts stay verifiable against one
 * address across restarts. A warning is logged on every start without a configured key (several instances must share
 * one key, or merchants would have to pin several addresses); the key itself is never logged.
 *
 * @param options - The configured key, production flag, data directory and logger.
 * @returns The key as 0x hex.
 * @throws ConfigError in production without `GATEWAY_SIGNING_KEY` (`loadGatewayConfig` already reports
 *   that with every other invalid variable; this guards configurations built by hand), or when the kept
 *   file is not a valid key.
 * @example
 * ```ts
 * import { privateKeyToAccount } from 'viem/accounts';
 * import { loadGatewayConfig, resolveGatewaySigningKey } from '@tollgate/gateway-server';
 * const config = loadGatewayConfig(process.env);
 * const signer = privateKeyToAccount(resolveGatewaySigningKey({ ...config, logger: console }));
 * ```
 */
export function resolveGatewaySigningKey(options: {
  signingKey: `0x${string}` | undefined;
  production: boolean;
  dataDir: string;
  logger: SecretWarnings;
}): `0x${string}` {
  if (options.signingKey !== undefined) return options.signingKey;
  if (options.production) {
    throw new ConfigError([{ variable: 'GATEWAY_SIGNING_KEY', expected: 'a secp256k1 private key as 0x + 64 hex digits (required when NODE_ENV=production)', received: undefined }]);
  }
  return keptSecret({
    path: gatewaySigningKeyPath(options.dataDir),
    variable: 'GATEWAY_SIGNING_KEY',
    what: 'gateway signing key',
    generate: generatePrivateKey,
    parse: (text) => (isSigningKey(text) ? (text.toLowerCase() as `0x${string}`) : undefined),
    logger: options.logger,
  });
}
