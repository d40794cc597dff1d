/**
 * `@tollgate/core`: the framework-agnostic engine of Tollgate. Everything here runs in Node, browsers
 * and workers; Node-only helpers live under `@tollgate/core/node`, drivers under `/pglite` and `/pg`,
 * conformance suites under `/testing`, and every building block of the gateway under `/gateway`.
 *
 * @packageDocumentation
 */
export * from './errors';
export * from './time';
export * from './cbor';
export * from './json';
export * from './crypto';
export * from './http';
export * from './storage';
export * from './config';
export * from './chain';
export * from './x402';
// Order mode's refund receipts (paid and rejected): build, sign, verify, hash.
export * from './x402/refund-receipt';
export * from './x402/refund-receipt-verify';
export * from './license';
// The gateway's embedding surface: what an application needs to run the gateway (wire it, store it, key
// it, reach its chains, run its two job queues). Its building blocks (payment steps, SQL store pieces,
// route builders, caches, evidence search) stay behind `@tollgate/core/gateway`, so they can change
// without breaking embedders. test/core-root-surface.test.ts fails if the whole room comes back here.
export {
  createGateway,
  gatewayRoutes,
  defaultGatewayRateLimits,
  createSqlGatewayStores,
  gatewayMigrations,
  createNetworkRegistry,
  defaultNetworks,
  parseGatewaySecret,
  deriveGatewayKeys,
  gatewaySecretBytes,
  createRpcClients,
  createChainHealthProbe,
  createViemWalletSignatureVerifier,
  createGatewayEvents,
  defaultPaymentSettings,
  resolvePaymentSettings,
  settlementRecoveryQueue,
  notificationQueue,
  createNotificationDeliverer,
  NotificationTransportError,
  type Gateway,
  type GatewayDeps,
  type GatewayLogger,
  type GatewayWorkers,
  type GatewayWorkerOptions,
  type GatewayRateLimits,
  type GatewayStores,
  type MerchantStore,
  type RefStore,
  type PaymentStore,
  type GatewayNetwork,
  type NetworkRegistry,
  type NetworkRegistryOptions,
  type GatewayKeys,
  type RpcClients,
  type RpcClientOptions,
  type ChainHealth,
  type ChainHealthProbe,
  type ChainHealthProbeOptions,
  type WalletSignatureVerifier,
  type WalletSignatureProof,
  type VerifyWalletMessageParams,
  type ViemWalletSignatureVerifierOptions,
  type GatewayEvent,
  type GatewayEventListener,
  type GatewayEvents,
  type GatewayEventsOptions,
  type PaymentOptions,
  type PaymentSettings,
  type PaymentEvent,
  type SettlementChainClient,
  type SettlementRecovery,
  type SettlementRecoveryJob,
  type NotificationJob,
  type NotificationDeliverer,
  type NotificationDelivererDeps,
  type NotificationDeliveryOutcome,
  type NotificationTransport,
  type NotificationTransportFailure,
  type NotificationRequest,
  type NotificationResponse,
} from './gateway';
