import { ConfigError, defaultGatewayRateLimits, type GatewayNetwork, type GatewayRateLimits } from '@tollgate/core';
import { envBoolean, envEnum, envInteger, envString, envUrl, parseEnv, type EnvRecord } from '@tollgate/core/config';
import { join } from 'node:path';
import {
  checkDevChainVariable,
  checkNetworkVariables,
  parseExtraNetworksVariable,
  parseFacilitatorHeadersVariable,
  parseFacilitatorUrlVariable,
  parseSigningKeyVariable,
  parsePublicUrlVariable,
  parseRateLimitVariable,
  parseRpcUrlsVariable,
  parseSecretVariable,
  type ConfigProblem,
  type Parsed,
} from './config-parsers';
import { evidenceConfigFromEnv, type EvidenceConfig } from './evidence-config';
import { notificationConfigFromEnv, type NotificationConfig } from './notifications/notification-config';

/** Everything the gateway server reads from its environment. */
export interface GatewayConfig {
  port: number;
  host: string;
  /** PostgreSQL server; absent means embedded PGlite under `dataDir`. */
  databaseUrl: string | undefined;
  /** Root of local state (`.tollgate` by default): the embedded database and generated dev keys. */
  dataDir: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Public origin bound into challenges and ref URLs; `http://localhost:<port>` when unset. */
  publicUrl: string | undefined;
  /** The 32-byte server secret; unset means a generated one under `dataDir` (refused in production). */
  secret: Uint8Array | undefined;
  /** `NODE_ENV=production`: no generated secret, no silent defaults for what must be configured. */
  production: boolean;
  /** Network name → JSON-RPC URL (ERC-1271 registration and health checks). */
  rpcUrls: Record<string, string>;
  /** Deadline of each chain read, in milliseconds. */
  rpcTimeoutMs: number;
  /** USDC address on the `local` dev chain, when not the dev stack's default. */
  localUsdc: string | undefined;
  /** Networks added to the built-in registry. */
  extraNetworks: GatewayNetwork[];
  /** Limits of the public routes per client address. */
  rateLimits: GatewayRateLimits;
  /** Proxy hops whose `X-Forwarded-For` is trusted for the client address (0 = use the socket address). */
  trustProxy: number;
  /** The gateway's secp256k1 key (signs offers and receipts); unset means a generated one under `dataDir` (refused in production). */
  signingKey: `0x${string}` | undefined;
  /** The x402 facilitator's base URL; unset means the dev stack's in dev mode, otherwise the gateway negotiates but cannot settle. */
  facilitatorUrl: string | undefined;
  /** Headers sent with every facilitator call (credentials: never logged). */
  facilitatorHeaders: Record<string, string>;
  /** Deadlines of the facilitator's `/verify` and `/settle`, in milliseconds. */
  facilitatorTimeoutsMs: { verify: number; settle: number };
  /** `maxTimeoutSeconds` of the payment requirements: how long a payer's authorization stays valid. */
  maxTimeoutSeconds: number;
  /** Most blocks per `eth_getLogs` call when reading settlement evidence. */
  maxBlockSpan: number;
  /** Most blocks one attempt of a payment's evidence search reads (it continues on the next attempt). */
  evidenceScanBlocks: number;
  /** How long a 402 negotiation may reuse a ref's status read by an earlier one on this instance (0 = never). */
  statusCacheMs: number;
  /** Whether a facilitator-reported settlement is checked on chain before its receipt is signed. */
  confirmTransfers: boolean;
  /** Merchant notification delivery (`GATEWAY_NOTIFY_*`). */
  notifications: NotificationConfig;
  /** Chain evidence: `/verify-receipt`, `/tx/:txHash`, `/txs` (policy, bounds, previous receipt signers, rate limits). */
  evidence: EvidenceConfig;
  /**
   * Start the local dev stack (anvil, test USDC, self-hosted facilitator) under `<dataDir>/devchain/`
   * and settle through it (`GATEWAY_DEV_CHAIN`, see `checkDevChainVariable` for the default).
   */
  devChain: boolean;
  /**
   * Order mode (`GATEWAY_ORDER_MODE`): the order and refund routes. `undefined` when unset, which is off,
   * except in dev mode: the local dev stack turns it on (see `startDevMode`).
   */
  orderMode: boolean | undefined;
}

/**
 * Reads the gateway configuration from environment variables. Every invalid variable is reported at once
 * with what it expected (`ConfigError`); secrets and RPC URLs are never repeated in the message.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `GATEWAY_PORT` | 4020 | listening port (0 = any free port) |
 * | `GATEWAY_HOST` | 127.0.0.1 | listening address |
 * | `GATEWAY_DATABASE_URL` or `DATABASE_URL` | – | PostgreSQL server; embedded PGlite when unset |
 * | `TOLLGATE_DATA_DIR` | `.tollgate` | local state directory |
 * | `LOG_LEVEL` | info | pino level |
 * | `GATEWAY_PUBLIC_URL` | `http://localhost:<port>` | public origin (challenges, ref and resource URLs) |
 * | `GATEWAY_SECRET` | generated in `<dataDir>/gateway/secret.key` | 32 bytes, hex or base64; required in production |
 * | `NODE_ENV` | – | `production` requires `GATEWAY_SECRET` and `GATEWAY_SIGNING_KEY` |
 * | `GATEWAY_RPC_URLS` | – | `base=https://…,local=http://127.0.0.1:8545` |
 * | `GATEWAY_RPC_TIMEOUT_MS` | 5000 | deadline of each chain read (also the time budget of one `/txs` page) |
 * | `GATEWAY_LOCAL_USDC` | dev stack TestUSDC | USDC address of the `local` network |
 * | `GATEWAY_EXTRA_NETWORKS` | – | JSON array of extra networks |
 * | `GATEWAY_RATE_LIMIT_CHALLENGE` | 10/60 | challenges per client per window (seconds) |
 * | `GATEWAY_RATE_LIMIT_REGISTER` | 10/60 | registrations per client per window |
 * | `GATEWAY_RATE_LIMIT_REF_LOOKUP` | 120/60 | public ref lookups per client per window |
 * | `GATEWAY_RATE_LIMIT_RECEIVE` | 600/60 | `/receive` requests (402s and payments) per client per window, counted per instance in memory |
 * | `GATEWAY_TRUST_PROXY` | 0 | trusted proxy hops for the client address |
 * | `GATEWAY_SIGNING_KEY` | generated in `<dataDir>/gateway/signing.key` | secp256k1 key (0x hex) signing offers and receipts; required in production |
 * | `GATEWAY_FACILITATOR_URL` | – | x402 facilitator base URL; without it settlements answer `facilitator_unavailable` |
 * | `GATEWAY_FACILITATOR_HEADERS` | – | JSON object of headers for every facilitator call (never logged) |
 * | `GATEWAY_FACILITATOR_VERIFY_TIMEOUT_MS` | 10000 | deadline of `/verify` |
 * | `GATEWAY_FACILITATOR_SETTLE_TIMEOUT_MS` | 60000 | deadline of `/settle` (it waits for the receipt) |
 * | `GATEWAY_MAX_TIMEOUT_SECONDS` | 300 | `maxTimeoutSeconds` of the requirements |
 * | `GATEWAY_MAX_BLOCK_SPAN` | 2000 | blocks per `eth_getLogs` call (settlement evidence and `/txs` windows) |
 * | `GATEWAY_EVIDENCE_SCAN_BLOCKS` | 20000 | blocks one attempt of a payment's evidence search reads at most; the next attempt continues |
 * | `GATEWAY_STATUS_CACHE_MS` | 1000 | how long a 402 may reuse a ref's status (settlement always re-checks it) |
 * | `GATEWAY_CONFIRM_TRANSFERS` | true | check a settlement on chain (its transfer to payTo) before signing its receipt; `false` trusts the facilitator |
 * | `GATEWAY_NOTIFY_*` | see `notificationConfigFromEnv` | merchant notification delivery |
 * | `GATEWAY_EVIDENCE_ACCESS` | public | who may call `/verify-receipt`, `/tx/:txHash`, `/txs`: `public` or `merchant` (see `evidenceConfigFromEnv`) |
 * | `GATEWAY_PREVIOUS_RECEIPT_SIGNERS` | – | addresses of rotated-out receipt keys whose receipts still verify |
 * | `GATEWAY_HISTORY_SCAN_BLOCKS` | 20000 | blocks one `/txs` request walks at most |
 * | `GATEWAY_EVIDENCE_MAX_RESPONSE_BYTES` | 262144 | largest `/txs` page or `/tx` answer |
 * | `GATEWAY_TX_MAX_LOGS` | 100 | logs listed by `/tx/:txHash` |
 * | `GATEWAY_FINALITY_CONFIRMATIONS` | 64 | confirmations after which a transaction is final and cached |
 * | `GATEWAY_RATE_LIMIT_VERIFY_RECEIPT` | 120/60 | `/verify-receipt` requests per client per window, per instance |
 * | `GATEWAY_RATE_LIMIT_TX` | 120/60 | `/tx/:txHash` requests per client per window, per instance |
 * | `GATEWAY_RATE_LIMIT_TXS` | 30/60 | `/txs` pages per client per window, per instance |
 * | `GATEWAY_RATE_LIMIT_RECOVER_SETTLEMENT` | 30/60 | `/recover-settlement` requests per client per window, per instance |
 * | `GATEWAY_DEV_CHAIN` | on unless production or a facilitator, `local` RPC or local USDC is configured | `1`/`0`: the local dev stack (anvil + test USDC + facilitator) |
 * | `GATEWAY_ORDER_MODE` | off (on in dev mode) | `on`/`off`: the order and refund routes (`/order…`, `/refund-receipt/rejected`); off, they answer 404 |
 *
 * @example
 * ```ts
 * import { loadGatewayConfig } from '@tollgate/gateway-server';
 * const config = loadGatewayConfig(process.env);
 * ```
 */
export function loadGatewayConfig(env: EnvRecord): GatewayConfig {
  const problems: ConfigProblem[] = [];
  let parsed: ReturnType<typeof parseSimpleVariables> | undefined;
  try {
    parsed = parseSimpleVariables(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
  }
  const take = <T>(result: Parsed<T>): T | undefined => {
    if (result.ok) return result.value;
    problems.push(result.problem);
    return undefined;
  };
  const publicUrl = take(parsePublicUrlVariable(env['GATEWAY_PUBLIC_URL']));
  const secret = take(parseSecretVariable(env['GATEWAY_SECRET']));
  const rpcUrls = take(parseRpcUrlsVariable(env['GATEWAY_RPC_URLS']));
  const extraNetworks = take(parseExtraNetworksVariable(env['GATEWAY_EXTRA_NETWORKS']));
  const signingKey = take(parseSigningKeyVariable(env['GATEWAY_SIGNING_KEY']));
  const facilitatorUrl = take(parseFacilitatorUrlVariable(env['GATEWAY_FACILITATOR_URL']));
  const facilitatorHeaders = take(parseFacilitatorHeadersVariable(env['GATEWAY_FACILITATOR_HEADERS']));
  let notifications: NotificationConfig | undefined;
  let evidence: EvidenceConfig | undefined;
  for (const read of [() => (notifications = notificationConfigFromEnv(env)), () => (evidence = evidenceConfigFromEnv(env))]) {
    try {
      read();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  const rateLimits = {
    challenge: take(parseRateLimitVariable('GATEWAY_RATE_LIMIT_CHALLENGE', env['GATEWAY_RATE_LIMIT_CHALLENGE'], defaultGatewayRateLimits.challenge)),
    register: take(parseRateLimitVariable('GATEWAY_RATE_LIMIT_REGISTER', env['GATEWAY_RATE_LIMIT_REGISTER'], defaultGatewayRateLimits.register)),
    refLookup: take(parseRateLimitVariable('GATEWAY_RATE_LIMIT_REF_LOOKUP', env['GATEWAY_RATE_LIMIT_REF_LOOKUP'], defaultGatewayRateLimits.refLookup)),
    receive: take(parseRateLimitVariable('GATEWAY_RATE_LIMIT_RECEIVE', env['GATEWAY_RATE_LIMIT_RECEIVE'], defaultGatewayRateLimits.receive)),
  };
  if (parsed !== undefined && rpcUrls !== undefined && extraNetworks !== undefined) {
    problems.push(...checkNetworkVariables(extraNetworks, parsed.GATEWAY_LOCAL_USDC, rpcUrls));
  }
  const production = env['NODE_ENV'] === 'production';
  let devChain = false;
  if (parsed !== undefined && rpcUrls !== undefined) {
    const checked = checkDevChainVariable(parsed.GATEWAY_DEV_CHAIN, env['GATEWAY_DEV_CHAIN'], { production, facilitatorUrl, rpcUrls, localUsdc: parsed.GATEWAY_LOCAL_USDC });
    problems.push(...checked.problems);
    devChain = checked.devChain;
  }
  // Production never generates keys: both must be configured, and both are reported with the rest.
  if (production && secret === undefined && problems.every((entry) => entry.variable !== 'GATEWAY_SECRET')) {
    problems.push({ variable: 'GATEWAY_SECRET', expected: '32 random bytes as hex or base64 (required when NODE_ENV=production)', received: undefined });
  }
  if (production && signingKey === undefined && problems.every((entry) => entry.variable !== 'GATEWAY_SIGNING_KEY')) {
    problems.push({ variable: 'GATEWAY_SIGNING_KEY', expected: 'a secp256k1 private key as 0x + 64 hex digits (required when NODE_ENV=production)', received: undefined });
  }
  const { challenge, register, refLookup, receive } = rateLimits;
  // Every undefined value comes with a problem; the other checks only narrow the types.
  if (problems.length > 0 || !parsed || !rpcUrls || !extraNetworks || !challenge || !register || !refLookup || !receive || !facilitatorHeaders || !notifications || !evidence) {
    throw new ConfigError(problems);
  }
  return {
    port: parsed.GATEWAY_PORT,
    host: parsed.GATEWAY_HOST,
    databaseUrl: parsed.GATEWAY_DATABASE_URL ?? parsed.DATABASE_URL,
    dataDir: parsed.TOLLGATE_DATA_DIR,
    logLevel: parsed.LOG_LEVEL,
    publicUrl,
    secret,
    production,
    rpcUrls,
    rpcTimeoutMs: parsed.GATEWAY_RPC_TIMEOUT_MS,
    localUsdc: parsed.GATEWAY_LOCAL_USDC,
    extraNetworks,
    rateLimits: { challenge, register, refLookup, receive },
    trustProxy: parsed.GATEWAY_TRUST_PROXY,
    signingKey,
    facilitatorUrl,
    facilitatorHeaders,
    facilitatorTimeoutsMs: { verify: parsed.GATEWAY_FACILITATOR_VERIFY_TIMEOUT_MS, settle: parsed.GATEWAY_FACILITATOR_SETTLE_TIMEOUT_MS },
    maxTimeoutSeconds: parsed.GATEWAY_MAX_TIMEOUT_SECONDS,
    maxBlockSpan: parsed.GATEWAY_MAX_BLOCK_SPAN,
    evidenceScanBlocks: parsed.GATEWAY_EVIDENCE_SCAN_BLOCKS,
    statusCacheMs: parsed.GATEWAY_STATUS_CACHE_MS,
    confirmTransfers: parsed.GATEWAY_CONFIRM_TRANSFERS,
    notifications,
    evidence,
    devChain,
    orderMode: parsed.GATEWAY_ORDER_MODE === undefined ? undefined : parsed.GATEWAY_ORDER_MODE === 'on',
  };
}

function parseSimpleVariables(env: EnvRecord) {
  return parseEnv(env, {
    GATEWAY_PORT: envInteger({ min: 0, max: 65535, default: 4020 }),
    GATEWAY_HOST: envString({ default: '127.0.0.1' }),
    GATEWAY_DATABASE_URL: envUrl({ protocols: ['postgres:', 'postgresql:'], optional: true }),
    DATABASE_URL: envUrl({ protocols: ['postgres:', 'postgresql:'], optional: true }),
    TOLLGATE_DATA_DIR: envString({ default: '.tollgate' }),
    LOG_LEVEL: envEnum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, { default: 'info' }),
    GATEWAY_RPC_TIMEOUT_MS: envInteger({ min: 100, max: 60_000, default: 5_000 }),
    GATEWAY_LOCAL_USDC: envString({ pattern: /^0x[0-9a-fA-F]{40}$/, expected: 'an EVM address (0x + 40 hex digits)', optional: true }),
    GATEWAY_TRUST_PROXY: envInteger({ min: 0, max: 10, default: 0 }),
    GATEWAY_FACILITATOR_VERIFY_TIMEOUT_MS: envInteger({ min: 100, max: 120_000, default: 10_000 }),
    GATEWAY_FACILITATOR_SETTLE_TIMEOUT_MS: envInteger({ min: 100, max: 600_000, default: 60_000 }),
    GATEWAY_MAX_TIMEOUT_SECONDS: envInteger({ min: 30, max: 86_400, default: 300 }),
    GATEWAY_MAX_BLOCK_SPAN: envInteger({ min: 1, max: 1_000_000, default: 2_000 }),
    GATEWAY_EVIDENCE_SCAN_BLOCKS: envInteger({ min: 1, max: 10_000_000, default: 20_000 }),
    GATEWAY_STATUS_CACHE_MS: envInteger({ min: 0, max: 60_000, default: 1_000 }),
    GATEWAY_CONFIRM_TRANSFERS: envBoolean({ default: true }),
    GATEWAY_DEV_CHAIN: envBoolean({ optional: true }),
    GATEWAY_ORDER_MODE: envEnum(['off', 'on'] as const, { optional: true }),
  });
}

/** Directory of the embedded gateway database. */
export function gatewayDatabaseDir(config: Pick<GatewayConfig, 'dataDir'>): string {
  return join(config.dataDir, 'gateway', 'db');
}
