import { ConfigError, hexDecode, type LicenseServiceOptions } from '@tollgate/core';
import { envEnum, envInteger, envString, envUrl, parseEnv, type EnvRecord } from '@tollgate/core/config';
import { base64Decode } from '@tollgate/core/crypto';
import { defaultAdminTokenPrefix, defaultClientRateLimits, type ClientRateLimits } from '@tollgate/core/license';
import type { RateLimitRule } from '@tollgate/core/storage';
import { join } from 'node:path';
import { parseAnalyticsConfig, type AnalyticsConfig } from './config/analytics-config';
import { parseBillingConfig, type BillingConfig } from './config/billing-config';
import { parseEpochsConfig, type EpochsConfig } from './config/epochs-config';
import { parseIntegrityConfig, type IntegrityConfig } from './config/integrity-config';
import { parseTelemetryConfig, type TelemetryConfig } from './config/telemetry-config';

/** Everything the license server reads from its environment. */
export interface LicenseConfig {
  port: number;
  host: string;
  /** PostgreSQL server; absent means embedded PGlite under `dataDir`. */
  databaseUrl: string | undefined;
  /** Root of local state (`.tollgate` by default). */
  dataDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `NODE_ENV=production`: no dev keys are ever generated; the master key and root pins are required. */
  production: boolean;
  /** 32 bytes sealing epoch private keys at rest (`LICENSE_MASTER_KEY`); dev mode keeps one on disk. */
  masterKey: Uint8Array | undefined;
  /** Pinned root public keys (current, next): certificates must verify against one of them. */
  rootPublicKeys: Uint8Array[];
  /** How often every instance rebuilds its keyset from the database, in seconds. */
  keysetRefreshSeconds: number;
  /** Prefix of Admin tokens (`ADMIN_TOKEN_PREFIX`, 5 printable characters: prefix + 43 = 48). */
  adminTokenPrefix: string;
  /** Realm of `WWW-Authenticate: Bearer realm="…"` on Admin 401s (`ADMIN_REALM`). */
  adminRealm: string;
  /** How often the audit heads are signed as anchors, in seconds (`LICENSE_AUDIT_ANCHOR_SECONDS`). */
  auditAnchorSeconds: number;
  /** Budgets of activate, validate and offline per client address and per license (`LICENSE_RATE_LIMIT_*`). */
  clientRateLimits: ClientRateLimits;
  /** How often machines silent past their heartbeat window lose their seat, in seconds (`LICENSE_SEAT_RECLAIM_SECONDS`). */
  seatReclaimSeconds: number;
  /** Proxy hops whose `X-Forwarded-For` is trusted for the client address (`LICENSE_TRUST_PROXY`); 0 = the socket address. */
  trustProxy: number;
  /** Epoch administration (two-actor revocation window). */
  epochs: EpochsConfig;
  /** Integrity signing (CI OIDC issuers, `INTEGRITY_OIDC_*`). */
  integrity: IntegrityConfig;
  /** Billing webhooks (provider secrets, dunning grace). */
  billing: BillingConfig;
  /** Telemetry (retention, metrics route). */
  telemetry: TelemetryConfig;
  /** Analytics (rollups, exports, subscription delivery). */
  analytics: AnalyticsConfig;
}

const masterKeyPattern = /^(?:[0-9a-f]{64}|[A-Za-z0-9+/]{43}=?|[A-Za-z0-9_-]{43})$/;
const rootKeysPattern = /^[0-9a-f]{64}(?:,[0-9a-f]{64}){0,3}$/;

/**
 * Decodes `LICENSE_MASTER_KEY`: 32 bytes as 64 lower-case hex digits or as base64 (standard or URL
 * alphabet).
 *
 * @param text - The variable's value.
 * @returns The 32 key bytes.
 *
 * @example
 * ```ts
 * import { decodeMasterKey } from '@tollgate/license-server';
 * const key = decodeMasterKey(process.env.LICENSE_MASTER_KEY!); // 32 bytes
 * ```
 */
export function decodeMasterKey(text: string): Uint8Array {
  return text.length === 64 ? hexDecode(text) : base64Decode(text);
}

/**
 * Reads the license server configuration from environment variables. Every invalid variable is reported
 * at once with what it expected (`ConfigError`).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `LICENSE_PORT` | 4030 | listening port (0 = any free port) |
 * | `LICENSE_HOST` | 127.0.0.1 | listening address |
 * | `LICENSE_DATABASE_URL` or `DATABASE_URL` | – | PostgreSQL server; embedded PGlite when unset |
 * | `TOLLGATE_DATA_DIR` | `.tollgate` | local state directory |
 * | `LOG_LEVEL` | info | pino level |
 * | `NODE_ENV` | – | `production` disables dev keys and requires the two variables below |
 * | `LICENSE_MASTER_KEY` | dev: `.tollgate/license/master.key` | 32 bytes (64 hex digits or base64) sealing epoch keys |
 * | `LICENSE_ROOT_PUBLIC_KEYS` | dev: the dev root | pinned root public keys, comma-separated hex (current,next) |
 * | `LICENSE_KEYSET_REFRESH_SECONDS` | 30 | how often the keyset is rebuilt from the database |
 * | `ADMIN_TOKEN_PREFIX` | `tgla_` | prefix of Admin tokens (5 printable characters; tokens are 48 characters) |
 * | `ADMIN_REALM` | `tollgate-license` | realm named in `WWW-Authenticate` on Admin 401s |
 * | `LICENSE_AUDIT_ANCHOR_SECONDS` | 300 | how often each vendor's audit head is signed as an anchor |
 * | `LICENSE_RATE_LIMIT_PER_ADDRESS` | 600/60 | activate, validate and offline requests per client address per window (seconds), each route its own budget; `off` disables |
 * | `LICENSE_RATE_LIMIT_PER_LICENSE` | 120/60 | the same per license (per account for account activations); `off` disables |
 * | `LICENSE_SEAT_RECLAIM_SECONDS` | 60 | how often seats of machines silent past their policy's heartbeat window are reclaimed |
 * | `LICENSE_TRUST_PROXY` | 0 | trusted proxy hops in front of the server (the client address the per-address budget keys on) |
 *
 * @example
 * ```ts
 * import { loadLicenseConfig } from '@tollgate/license-server';
 * const config = loadLicenseConfig(process.env);
 * ```
 */
export function loadLicenseConfig(env: EnvRecord): LicenseConfig {
  const problems: ConfigError['problems'] = [];
  let parsed: ReturnType<typeof parseVariables> | undefined;
  try {
    parsed = parseVariables(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  // Parsed apart from the others so that a malformed secret never appears in the error message.
  const masterKey = readMasterKey(env['LICENSE_MASTER_KEY'], problems);
  const features = {
    epochs: collectProblems(() => parseEpochsConfig(env), problems),
    integrity: collectProblems(() => parseIntegrityConfig(env), problems),
    billing: collectProblems(() => parseBillingConfig(env), problems),
    telemetry: collectProblems(() => parseTelemetryConfig(env), problems),
    analytics: collectProblems(() => parseAnalyticsConfig(env), problems),
  };
  const production = env['NODE_ENV'] === 'production';
  if (production) {
    if (env['LICENSE_MASTER_KEY'] === undefined || env['LICENSE_MASTER_KEY'] === '') problems.push(requiredInProduction('LICENSE_MASTER_KEY'));
    if (parsed !== undefined && parsed.LICENSE_ROOT_PUBLIC_KEYS === undefined) problems.push(requiredInProduction('LICENSE_ROOT_PUBLIC_KEYS'));
  }
  if (problems.length > 0 || parsed === undefined) throw new ConfigError(problems);
  const { epochs, integrity, billing, telemetry, analytics } = features;
  if (epochs === undefined || integrity === undefined || billing === undefined || telemetry === undefined || analytics === undefined) throw new ConfigError(problems);
  return {
    port: parsed.LICENSE_PORT,
    host: parsed.LICENSE_HOST,
    databaseUrl: parsed.LICENSE_DATABASE_URL ?? parsed.DATABASE_URL,
    dataDir: parsed.TOLLGATE_DATA_DIR,
    logLevel: parsed.LOG_LEVEL,
    production,
    masterKey,
    rootPublicKeys: parsed.LICENSE_ROOT_PUBLIC_KEYS === undefined ? [] : parsed.LICENSE_ROOT_PUBLIC_KEYS.split(',').map(hexDecode),
    keysetRefreshSeconds: parsed.LICENSE_KEYSET_REFRESH_SECONDS,
    adminTokenPrefix: parsed.ADMIN_TOKEN_PREFIX,
    adminRealm: parsed.ADMIN_REALM,
    auditAnchorSeconds: parsed.LICENSE_AUDIT_ANCHOR_SECONDS,
    clientRateLimits: {
      ...rateLimitOf(parsed.LICENSE_RATE_LIMIT_PER_ADDRESS, 'perAddress'),
      ...rateLimitOf(parsed.LICENSE_RATE_LIMIT_PER_LICENSE, 'perLicense'),
    },
    seatReclaimSeconds: parsed.LICENSE_SEAT_RECLAIM_SECONDS,
    trustProxy: parsed.LICENSE_TRUST_PROXY,
    epochs,
    integrity,
    billing,
    telemetry,
    analytics,
  };
}

/** Runs a feature's settings parser, adding its `ConfigError` problems to the others (undefined then). */
function collectProblems<T>(parse: () => T, problems: ConfigError['problems']): T | undefined {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
    return undefined;
  }
}

const rateLimitPattern = /^(?:off|[1-9]\d{0,5}\/[1-9]\d{0,6})$/;

/** `limit/seconds` (limit 1–999,999, window 1 to 9,999,999 s) or `off`, already matched by {@link rateLimitPattern}. */
function rateLimitOf(text: string | undefined, name: keyof ClientRateLimits): ClientRateLimits {
  if (text === undefined) return { [name]: defaultClientRateLimits[name] };
  if (text === 'off') return {};
  const [limit, seconds] = text.split('/').map(Number) as [number, number];
  const rule: RateLimitRule = { limit, windowMs: seconds * 1000 };
  return { [name]: rule };
}

function parseVariables(env: EnvRecord) {
  return parseEnv(env, {
    LICENSE_PORT: envInteger({ min: 0, max: 65535, default: 4030 }),
    LICENSE_HOST: envString({ default: '127.0.0.1' }),
    LICENSE_DATABASE_URL: envUrl({ protocols: ['postgres:', 'postgresql:'], optional: true }),
    DATABASE_URL: envUrl({ protocols: ['postgres:', 'postgresql:'], optional: true }),
    TOLLGATE_DATA_DIR: envString({ default: '.tollgate' }),
    LOG_LEVEL: envEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, { default: 'info' }),
    LICENSE_ROOT_PUBLIC_KEYS: envString({ optional: true, pattern: rootKeysPattern, expected: '1 to 4 comma-separated 32-byte public keys in lower-case hex' }),
    LICENSE_KEYSET_REFRESH_SECONDS: envInteger({ min: 1, max: 3600, default: 30 }),
    ADMIN_TOKEN_PREFIX: envString({ default: defaultAdminTokenPrefix, pattern: /^[\x21-\x7e]{5}$/, expected: '5 printable ASCII characters without spaces (tokens are 48 characters)' }),
    ADMIN_REALM: envString({ default: 'tollgate-license', pattern: /^[\x20-\x7e]{1,64}$/, expected: '1 to 64 printable ASCII characters' }),
    LICENSE_AUDIT_ANCHOR_SECONDS: envInteger({ min: 10, max: 86_400, default: 300 }),
    LICENSE_RATE_LIMIT_PER_ADDRESS: envString({ optional: true, pattern: rateLimitPattern, expected: '<requests>/<seconds> (e.g. 600/60) or off' }),
    LICENSE_RATE_LIMIT_PER_LICENSE: envString({ optional: true, pattern: rateLimitPattern, expected: '<requests>/<seconds> (e.g. 120/60) or off' }),
    LICENSE_SEAT_RECLAIM_SECONDS: envInteger({ min: 5, max: 3600, default: 60 }),
    LICENSE_TRUST_PROXY: envInteger({ min: 0, max: 10, default: 0 }),
  });
}

function readMasterKey(raw: string | undefined, problems: ConfigError['problems']): Uint8Array | undefined {
  if (raw === undefined || raw === '') return undefined;
  const problem = { variable: 'LICENSE_MASTER_KEY', expected: '32 bytes as 64 lower-case hex digits or base64', received: '<redacted>' };
  if (!masterKeyPattern.test(raw)) {
    problems.push(problem);
    return undefined;
  }
  try {
    return decodeMasterKey(raw);
  } catch {
    problems.push(problem);
    return undefined;
  }
}

function requiredInProduction(variable: string): ConfigError['problems'][number] {
  return { variable, expected: 'a value in production (NODE_ENV=production generates no dev keys)', received: undefined };
}

/**
 * Directory of the license server's local state (`<dataDir>/license`).
 *
 * @example
 * ```ts
 * import { licenseStateDir } from '@tollgate/license-server';
 * licenseStateDir({ dataDir: '.tollgate' }); // '.tollgate/license'
 * ```
 */
export function licenseStateDir(config: Pick<LicenseConfig, 'dataDir'>): string {
  return join(config.dataDir, 'license');
}

/**
 * Directory of the embedded license database.
 *
 * @example
 * ```ts
 * import { licenseDatabaseDir } from '@tollgate/license-server';
 * licenseDatabaseDir({ dataDir: '.tollgate' }); // '.tollgate/license/db'
 * ```
 */
export function licenseDatabaseDir(config: Pick<LicenseConfig, 'dataDir'>): string {
  return join(licenseStateDir(config), 'db');
}

/**
 * The options `createLicenseService` takes, picked from the server's configuration by name: the service
 * never receives the master key, the root public keys, the database URL or the listen address through
 * its options (the master key goes in as its own dependency, so an options object that is logged or
 * inspected holds no secret).
 *
 * @param config - The loaded configuration.
 * @param version - The version `/health` reports.
 * @returns The service's options.
 * @example
 * ```ts
 * import { licenseServiceOptions, loadLicenseConfig } from '@tollgate/license-server';
 * const options = licenseServiceOptions(loadLicenseConfig(process.env), '1.0.0');
 * ```
 */
export function licenseServiceOptions(config: LicenseConfig, version: string): LicenseServiceOptions {
  return {
    keysetRefreshSeconds: config.keysetRefreshSeconds,
    adminTokenPrefix: config.adminTokenPrefix,
    adminRealm: config.adminRealm,
    auditAnchorSeconds: config.auditAnchorSeconds,
    clientRateLimits: config.clientRateLimits,
    seatReclaimSeconds: config.seatReclaimSeconds,
    trustProxy: config.trustProxy,
    epochs: config.epochs,
    integrity: config.integrity,
    billing: config.billing,
    telemetry: config.telemetry,
    analytics: config.analytics,
    version,
  };
}
