/**
 * `@tollgate/core`: the framework-agnostic engine of Tollgate. Everything here runs in Node, browsers
 * and workers. The root holds what most embedders need: the two composition roots (`createGateway`,
 * `createLicenseService`) with their options and ports, the errors they throw, clocks, the SQL port and
 * migrations, the HTTP route table, and the receipts and notifications a merchant verifies. Every other
 * building block lives in the subpath of its room, so it can change without breaking embedders:
 *
 * | Subpath | Room |
 * | --- | --- |
 * | `@tollgate/core/gateway` | the merchant gateway: payments, refs, orders, evidence, routes, stores |
 * | `@tollgate/core/license` | the license service: artifacts, epochs, the client protocol, the Admin API |
 * | `@tollgate/core/x402` | x402 v2 wire, headers, facilitator client, receipts, offers, notifications |
 * | `@tollgate/core/chain` | reading EIP-3009 evidence from a chain |
 * | `@tollgate/core/storage` | the SQL port, migrations, job queue, rate limiters |
 * | `@tollgate/core/http` | the route table, fetch adapter, body limits, CORS |
 * | `@tollgate/core/cbor` | canonical CBOR with decode limits |
 * | `@tollgate/core/crypto` | hashes, keyed hashes, Ed25519, encodings, constant-time compare |
 * | `@tollgate/core/config` | environment parsing |
 * | `@tollgate/core/node`, `/pglite`, `/pg`, `/testing` | Node adapters, drivers, conformance suites |
 *
 * test/core-root-surface.test.ts holds the root to at most 150 names and each subpath to the same
 * objects.
 *
 * @packageDocumentation
 */
export * from './errors';
export * from './time';
export * from './json';
export { ConfigError } from './config';
export {
  coreMigrations,
  runMigrations,
  SqlError,
  type SqlClient,
  type SqlSession,
  type SqlRow,
  type SqlParam,
  type SqlQueryResult,
  type Migration,
  type MigrationSet,
  type MigrationReport,
} from './storage';
export { toFetchHandler, type FetchHandlerOptions, type RouteTable, type Route, type Handler, type HttpRequest, type HttpResponse } from './http';
export { hexEncode, hexDecode, sha256, createNobleEd25519Signer, type Signer } from './crypto';
// What a merchant or payer verifies, and the facilitator the gateway settles through.
export {
  createHttpFacilitator,
  verifySignedReceipt,
  verifyNotification,
  NotificationSignatureError,
  refundOfReceipt,
  verifySignedRefundReceipt,
  X402HeaderError,
  type HttpFacilitatorOptions,
  type Facilitator,
  type PaymentReceipt,
  type SignedReceiptVerification,
  type MerchantNotification,
  type RefundReceipt,
  type PaymentRequirements,
  type PaymentPayload,
  type PaymentRequired,
} from './x402';
// The license service's embedding surface: wire it, migrate it, bootstrap its first vendor, and the two
// vendor-side tools the README shows (sealing an asset, encoding an integrity manifest).
export {
  createLicenseService,
  defaultLicenseServiceOptions,
  licenseMigrations,
  bootstrapVendor,
  sealAsset,
  encodeIntegrityManifest,
  type LicenseService,
  type LicenseServiceDeps,
  type LicenseServiceOptions,
  type LicenseServiceRoutes,
  type LicenseWorkers,
  type LicenseCrypto,
  type LicenseNetwork,
  type LicenseLogger,
} from './license';
// The gateway's embedding surface: what an application needs to run the gateway (wire it, store it, key
// it, reach its chains, run its two job queues). Its building blocks (payment steps, SQL store pieces,
// route builders, caches, evidence search) stay behind `@tollgate/core/gateway`.
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
  type GatewayNetwork,
  type NetworkRegistry,
  type NetworkRegistryOptions,
  type GatewayKeys,
  type RpcClients,
  type RpcClientOptions,
  type ChainHealthProbe,
  type WalletSignatureVerifier,
  type GatewayEvent,
  type GatewayEventListener,
  type GatewayEvents,
  type PaymentOptions,
  type PaymentSettings,
  type PaymentEvent,
  type NotificationJob,
  type NotificationDeliverer,
  type NotificationTransport,
  type NotificationRequest,
  type NotificationResponse,
} from './gateway';
