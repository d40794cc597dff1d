import {
  coreMigrations,
  createChainHealthProbe,
  createHttpFacilitator,
  createGateway,
  createNetworkRegistry,
  createRpcClients,
  createViemWalletSignatureVerifier,
  deriveGatewayKeys,
  gatewayMigrations,
  systemClock,
  type Clock,
  type NetworkRegistry,
  type PaymentEvent,
  type PaymentOptions,
} from '@tollgate/core';
import type { RandomSource } from '@tollgate/core/crypto';
import {
  evmSignerWithBackend,
  type EvmSigner,
  type Secp256k1Backend,
} from '@tollgate/core/x402';
import { healthOperations, type EvidenceOptions, type NotificationWorkerOptions } from '@tollgate/core/gateway';
import { closeOnSignal, createKeepAliveFetch, createNodeNotificationTransport, loadSecp256k1Backend, type RunningService, serverLoggerOptions, startService } from '@tollgate/core/node';
import pino, { type DestinationStream, type Logger } from 'pino';
import { createGatewayListener } from './app';
import { gatewayDatabaseDir, loadGatewayConfig, type GatewayConfig } from './config';
import { startDevMode, type DevChainInfo } from './dev-mode';
import { healthRoutes } from './routes/health';
import { resolveGatewaySecret } from './secret-file';
import { resolveGatewaySigningKey } from './signing-key';

/** What a running gateway exposes besides its URL. */
export interface GatewayContext {
  logger: Logger;
  /** The public origin bound into challenges and ref URLs. */
  publicUrl: string;
  /** The networks the API accepts. */
  networks: NetworkRegistry;
  /** Address of the key that signs offers and receipts (also in `/healthz` as `receiptSigner`). */
  receiptSigner: `0x${string}`;
  /** The local dev stack the gateway started and settles through (`GATEWAY_DEV_CHAIN`); `undefined` otherwise. */
  devChain: DevChainInfo | undefined;
}

/** A running gateway. */
export type RunningGateway = RunningService<GatewayContext>;

/** Options of {@link startGatewayServer}. */
export interface StartGatewayOptions {
  /** Where log lines go (stdout by default); tests capture them here. */
  logDestination?: DestinationStream;
  /** Source of time (the system clock by default); tests pass a `ManualClock` to expire challenges. */
  clock?: Clock;
  /** Randomness for ids and keys (the platform CSPRNG by default). */
  random?: RandomSource;
  /** Poll interval of the settlement-recovery worker when its queue is empty (default 1 000 ms). */
  recoveryPollIntervalMs?: number;
  /** Interval of the sweep for claims whose holder died mid-settle (default 30 000 ms). */
  recoverySweepIntervalMs?: number;
  /** Overrides of the notification worker (tests: a transport to a loopback receiver, a fast poll). */
  notifications?: Partial<Pick<NotificationWorkerOptions, 'transport' | 'insecureAllowLoopbackForTests' | 'random' | 'pollIntervalMs'>>;
}

/** Log line of a payment event: ids, hashes and reasons only (never payloads or signatures). */
function logPaymentEvent(logger: Logger, event: PaymentEvent): void {
  const { type, ...fields } = event;
  // A failure, and a recovery job that had died (the payment was pending for hours), need a look.
  if (type === 'failed' || type === 'recovery_renewed') logger.warn({ payment: type, ...fields }, `payment ${type.replace('_', ' ')}`);
  else logger.info({ payment: type, ...fields }, `payment ${type.replace('_', ' ')}`);
}

/**
 * Opens the database (PGlite under the data dir, or `DATABASE_URL`), applies the core and gateway
 * migrations, and serves the gateway: health, merchant registration and credentials, refs and payTo
 * retirement, x402 payments on `/receive/:payTo` (settling through `GATEWAY_FACILITATOR_URL`) with
 * the settlement-recovery worker, chain evidence (`/verify-receipt`, `/tx/:txHash`, `/txs`), and with
 * `config.orderMode` orders and refund intents (`/order…`, `/refund-receipt/rejected`). In dev mode (`config.devChain`) it first starts the local dev stack
 * and settles through it, and writes `<dataDir>/devchain/dev-stack.json` once listening. `close()` stops
 * it gracefully, the dev stack last.
 *
 * @example
 * ```ts
 * import { loadGatewayConfig, startGatewayServer } from '@tollgate/gateway-server';
 * const gateway = await startGatewayServer(loadGatewayConfig(process.env));
 * console.log(`gateway on ${gateway.url}`);
 * ```
 */
export async function startGatewayServer(configured: GatewayConfig, options: StartGatewayOptions = {}): Promise<RunningGateway> {
  const loggerOptions = serverLoggerOptions({ service: 'tollgate-gateway', level: configured.logLevel });
  const logger = options.logDestination ? pino(loggerOptions, options.logDestination) : pino(loggerOptions);
  // Resolved before the dev chain and the database start, so a missing production secret fails fast.
  const keys = deriveGatewayKeys(resolveGatewaySecret({ ...configured, logger }));
  const secp256k1 = await loadSecp256k1Backend(logger);
  const signer = evmSignerWithBackend(resolveGatewaySigningKey({ ...configured, logger }), secp256k1);
  const devMode = await startDevMode(configured, { logger });
  let running: RunningGateway | undefined;
  try {
    running = await serveGateway(devMode ? devMode.apply(configured) : configured, options, { logger, keys, signer, secp256k1, devChain: devMode?.info });
    devMode?.publish(running.url);
  } catch (error) {
    await running?.close();
    await devMode?.stop();
    throw error;
  }
  const service = running;
  let closing: Promise<void> | undefined;
  return {
    ...service,
    // The chain stops last: the drained requests and the workers may still read it.
    close: () =>
      (closing ??= (async () => {
        await service.close();
        await devMode?.stop();
      })()),
  };
}

/** What {@link startGatewayServer} resolved before serving. */
interface GatewayStartState {
  logger: Logger;
  keys: ReturnType<typeof deriveGatewayKeys>;
  signer: EvmSigner;
  /** libsecp256k1 when its native binding loads here, else noble. */
  secp256k1: Secp256k1Backend;
  devChain: DevChainInfo | undefined;
}

/** Serves the gateway with an effective configuration (the dev stack's facilitator and RPC already applied). */
async function serveGateway(config: GatewayConfig, options: StartGatewayOptions, { logger, keys, signer, secp256k1, devChain }: GatewayStartState): Promise<RunningGateway> {
  const clock = options.clock ?? systemClock;
  const networks = createNetworkRegistry({ extra: config.extraNetworks, ...(config.localUsdc === undefined ? {} : { localUsdc: config.localUsdc }) });
  // One kept-alive `node:http` fetch for the gateway's outbound hot-path calls (JSON-RPC, facilitator).
  const outbound = createKeepAliveFetch();
  const rpc = createRpcClients(networks, config.rpcUrls, { timeoutMs: config.rpcTimeoutMs, fetch: outbound });
  // With port 0 the default origin is known only once the server listens.
  const listening: { port?: number } = {};
  const publicUrl = () => config.publicUrl ?? `http://localhost:${listening.port ?? config.port}`;

  const running = await startService<GatewayContext>({
    name: 'tollgate-gateway',
    port: config.port,
    host: config.host,
    databaseUrl: config.databaseUrl,
    databaseDir: gatewayDatabaseDir(config),
    migrations: [coreMigrations, gatewayMigrations],
    logger,
    build: async ({ database }) => {
      const { enabled: notify, connectTimeoutMs, ...notifySettings } = config.notifications;
      const loopback = options.notifications?.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {};
      const gateway = createGateway({
        sql: database.sql,
        keys,
        networks,
        publicUrl,
        clock,
        logger,
        ...(options.random === undefined ? {} : { random: options.random }),
        signatureVerifier: createViemWalletSignatureVerifier({ rpc, timeoutMs: config.rpcTimeoutMs }),
        rateLimits: config.rateLimits,
        payments: paymentOptions(config, { signer, secp256k1, rpc, networks, logger, devChain: devChain !== undefined, fetch: outbound }),
        evidence: evidenceOptions(config, rpc),
        evidenceRateLimits: config.evidence.rateLimits,
        openapi: { operations: [healthOperations] },
        orderMode: config.orderMode === true,
        workers: {
          recovery: { pollIntervalMs: options.recoveryPollIntervalMs, sweepIntervalMs: options.recoverySweepIntervalMs },
          notifications: notify
            ? { transport: createNodeNotificationTransport({ connectTimeoutMs, ...loopback }), ...notifySettings, ...options.notifications }
            : false,
        },
      });
      gateway.workers.start();
      const chains = createChainHealthProbe({ rpc, clock, timeoutMs: Math.min(config.rpcTimeoutMs, 2_000) });
      return {
        listener: createGatewayListener([...healthRoutes({ database, chains, receiptSigner: signer.address }), ...gateway.routes], logger, { trustProxy: config.trustProxy }),
        context: {
          logger,
          networks,
          receiptSigner: signer.address,
          devChain,
          get publicUrl() {
            return publicUrl();
          },
        },
        stop: async () => {
          await gateway.close();
          outbound.close();
        },
      };
    },
  });
  listening.port = running.port;
  return running;
}

/** Payment options from the configuration: the signing key, the facilitator (when configured) and chain reads. */
function paymentOptions(
  config: GatewayConfig,
  deps: { signer: PaymentOptions['signer']; secp256k1: Secp256k1Backend; rpc: ReturnType<typeof createRpcClients>; networks: NetworkRegistry; logger: Logger; devChain: boolean; fetch: typeof fetch },
): PaymentOptions {
  const { verify, settle } = config.facilitatorTimeoutsMs;
  if (config.facilitatorUrl === undefined) deps.logger.warn({}, 'GATEWAY_FACILITATOR_URL is not set: /receive negotiates payments but answers settlements with facilitator_unavailable.');
  else if (!deps.devChain) {
    // (The dev stack's facilitator settles `local` only, and brings its RPC.)
    const withRpc = new Set(deps.rpc.configured.map((entry) => entry.network.name));
    const without = deps.networks.networks.map((network) => network.name).filter((name) => !withRpc.has(name));
    // Not refused: merchants may never use some networks. But on these, a settle whose outcome is unknown
    // (timeout, broadcast unconfirmed) cannot be finished: the payer may be charged without a receipt.
    if (without.length > 0) {
      deps.logger.warn(
        { networks: without },
        'GATEWAY_RPC_URLS has no RPC for these networks: a payment on them whose settle outcome is unknown stays pending (its recovery is retried, and logged as an error each time it gives up) until an RPC is configured; set one for every network you accept payments on',
      );
    }
  }
  return {
    signer: deps.signer,
    secp256k1: deps.secp256k1,
    confirmTransfers: config.confirmTransfers,
    ...(config.facilitatorUrl === undefined
      ? {}
      : { facilitator: createHttpFacilitator({ url: config.facilitatorUrl, headers: config.facilitatorHeaders, timeoutMs: { verify, settle }, fetch: deps.fetch }) }),
    chain: (network) => deps.rpc.forNetwork(network.name),
    settings: {
      maxTimeoutSeconds: config.maxTimeoutSeconds,
      offerValiditySeconds: config.maxTimeoutSeconds,
      maxBlockSpan: config.maxBlockSpan,
      evidenceScanBlocks: config.evidenceScanBlocks,
      statusCacheMs: config.statusCacheMs,
      evidenceTimeoutMs: config.rpcTimeoutMs,
      // The claim outlives the facilitator's deadlines, and a duplicate waits as long as the first may take.
      leaseMs: verify + settle + 30_000,
      waitMs: verify + settle + 5_000,
    },
    onEvent: (event) => logPaymentEvent(deps.logger, event),
  };
}

/** Chain-evidence options from the configuration: the same RPC clients and deadline as payments. */
function evidenceOptions(config: GatewayConfig, rpc: ReturnType<typeof createRpcClients>): EvidenceOptions {
  const { evidence } = config;
  return {
    chain: (network) => rpc.forNetwork(network.name),
    previousReceiptSigners: evidence.previousReceiptSigners,
    access: evidence.access,
    settings: {
      rpcTimeoutMs: config.rpcTimeoutMs,
      maxBlockSpan: config.maxBlockSpan,
      historyScanBlocks: evidence.historyScanBlocks,
      maxResponseBytes: evidence.maxResponseBytes,
      maxTxLogs: evidence.maxTxLogs,
      finalityConfirmations: evidence.finalityConfirmations,
    },
  };
}

/** The CLI: starts the gateway from environment variables and stops it gracefully on SIGTERM/SIGINT. */
export async function runGatewayFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<RunningGateway> {
  const gateway = await startGatewayServer(loadGatewayConfig(env));
  closeOnSignal(gateway, gateway.context.logger);
  return gateway;
}
