/**
 * `@tollgate/core/gateway`: every building block of the x402 gateway (payment steps, store ports and
 * their SQL implementations, route builders, schemas, caches, notification delivery). The package root
 * exports only the part an embedding application needs (`createGateway`, the stores, keys, networks and
 * the two job queues); reach for this subpath to build something else from the pieces. Platform-neutral.
 *
 * @packageDocumentation
 */
export {
  defaultNetworks,
  createNetworkRegistry,
  networkDefinitionSchema,
  networkNamePattern,
  type GatewayNetwork,
  type UsdcToken,
  type NetworkRegistry,
  type NetworkRegistryOptions,
} from './networks';
export { classifyIpAddress, parseIpv4, parseIpv6, type IpAddressClass, type IpAddressKind } from '../net/ip-ranges';
export { checkPublicHttpsUrl, maxPublicUrlLength, type PublicHttpsUrlCheck, type UnsafeUrlReason } from '../net/url-safety';
export { evmAddressSchema, networkFieldSchema, utf8TextSchema, publicHttpsUrlSchema } from '../fields/schema-fields';
export { findInvisibleFormatting } from '../fields/schema-fields';
export { parseGatewaySecret, deriveGatewayKeys, gatewaySecretBytes, gatewayKeyLabels, type GatewayKeys } from './secrets';
export { createRpcClients, type RpcClients, type ConfiguredRpc, type RpcClientOptions } from './rpc-clients';
export { createChainHealthProbe, type ChainHealth, type ChainHealthProbe, type ChainHealthProbeOptions } from './chain-health';
export { resolvePublicUrl, epochSeconds, type GatewayServiceDeps } from './service-deps';
export { createGatewayEvents, type GatewayEvent, type GatewayEventListener, type GatewayEvents, type GatewayEventsOptions } from './gateway-events';
export {
  merchantRegisterAction,
  challengeLifetimeSeconds,
  challengeTime,
  webhookUrlSha256,
  renderSigningMessage,
  type ChallengeMessage,
} from './merchants/challenge-message';
export { apiKeyPrefix, apiKeyPattern, generateApiKey, hashApiKey, newCredentialId, deriveNotifyHmacKey } from './merchants/credentials';
export {
  createViemWalletSignatureVerifier,
  type WalletSignatureVerifier,
  type WalletSignatureProof,
  type VerifyWalletMessageParams,
  type ViemWalletSignatureVerifierOptions,
} from './merchants/signature-verifier';
export {
  challengeRequestSchema,
  registerRequestSchema,
  credentialRequestSchema,
  maxMerchantLabelBytes,
  maxRegistrationSignatureBytes,
  type ChallengeRequest,
  type RegisterRequest,
  type CredentialRequest,
} from './merchants/schemas';
export {
  createRegistrationService,
  type RegistrationService,
  type RegistrationServiceDeps,
  type IssuedChallenge,
  type IssuedCredentials,
  type AttachedPayTo,
} from './merchants/registration-service';
export {
  createMerchantAccountService,
  type MerchantAccountService,
  type MerchantAccountServiceDeps,
  type AuthenticatedMerchant,
  type MerchantProfile,
  type ProfileKey,
  type RotatedCredential,
  type RevokedCredential,
  type RetiredPayTo,
} from './merchants/account-service';
export { parseAtomicAmount, maxAtomicAmount } from './refs/amount';
export {
  createRefRequestSchema,
  listRefsQuerySchema,
  maxRefLabelBytes,
  maxRefDescriptionBytes,
  defaultRefLifetimeSeconds,
  maxRefLifetimeSeconds,
  invoiceIdPattern,
  refListLimits,
  type CreateRefRequest,
  type ListRefsRequest,
} from './refs/schemas';
export { encodeRefCursor, decodeRefCursor, type RefCursorScope, type RefCursorPosition } from './refs/cursor';
export {
  createRefService,
  type RefService,
  type RefServiceDeps,
  type RefSnapshot,
  type CreatedRef,
  type PublicRef,
  type RefListItem,
  type RefPage,
  type RevokedRef,
} from './refs/ref-service';
// Order mode: orders, refund intents, their schemas, views, cursor and routes.
export {
  createOrderRequestSchema,
  listOrdersQuerySchema,
  createRefundRequestSchema,
  rejectRefundRequestSchema,
  statelessRejectionRequestSchema,
  orderMetadataSchema,
  orderMetadataLimits,
  orderMetadataKeyPattern,
  orderListLimits,
  orderStatuses,
  defaultRefundLifetimeSeconds,
  maxRefundLifetimeSeconds,
  maxRefundReasonBytes,
  isOrderId,
  isRefundId,
  type CreateOrderRequest,
  type ListOrdersRequest,
  type CreateRefundRequest,
  type RejectRefundRequest,
  type StatelessRejectionRequest,
} from './orders/schemas';
export { encodeOrderCursor, decodeOrderCursor, type OrderCursorScope, type OrderCursorPosition } from './orders/cursor';
export { buildRefSnapshot, type RefSnapshotFacts } from './refs/ref-snapshot';
export {
  orderView,
  refundView,
  refundableOf,
  refundReceiveUrl,
  receiptHashHex,
  type OrderView,
  type OrderPaymentView,
  type RefundView,
  type RefundPaymentView,
  type RefundRejectionView,
} from './orders/order-views';
export { createOrderService, orderNotFound, type OrderService, type OrderServiceDeps, type OrderPage } from './orders/order-service';
export { createRefundService, type RefundService, type RefundServiceDeps, type StatelessRejection } from './orders/refund-service';
export { orderRoutes, orderBodyLimit, type OrderRouteDeps } from './routes/order-routes';
export { refundRoutes, refundBodyLimits, type RefundRouteDeps } from './routes/refund-routes';
export type { MerchantStore, RegistrationRequest, RegistrationOutcome, RotationOutcome, ApiKeyMatch } from './store/merchant-store';
export type { RefStore, CreateRefOutcome, ListRefsQuery } from './store/ref-store';
export type { PaymentStore } from './store/payment-store';
export type {
  OrderStore,
  CreateOrderOutcome,
  CancelOrderOutcome,
  CreateRefundOutcome,
  RejectRefundOutcome,
  ListOrdersQuery,
  RefundRejection,
} from './store/order-store';
export {
  orderStatusAt,
  type OrderRecord,
  type OrderStatus,
  type StoredOrderStatus,
  type NewOrder,
  type RefundRecord,
  type RefundStatus,
  type NewRefund,
} from './store/order-records';
export { createSqlOrderStore } from './store/sql-order-store';
export type { GatewayStores } from './store/gateway-stores';
export type {
  PaymentState,
  StoredSettlementAnswer,
  PaymentRecord,
  PaymentIdentityFields,
  PaymentTarget,
  PaymentStatus,
  NewPaymentClaim,
  PaymentClaimOutcome,
  PaymentLookup,
  PaymentCompletion,
  PaymentFailure,
  PaymentTransition,
} from './store/payment-records';
export type {
  ChallengeRecord,
  CredentialKind,
  CredentialStatus,
  CredentialRecord,
  NewCredential,
  PayToRecord,
  PayToStatus,
  MerchantRecord,
  RefRecord,
  RefStatus,
  RefKind,
  NewRefRecord,
} from './store/records';
export { createSqlMerchantStore } from './store/sql-merchant-store';
export { createSqlRefStore } from './store/sql-ref-store';
export { createSqlPaymentStore } from './store/sql-payment-store';
export { createSqlGatewayStores } from './store/sql-gateway-stores';
export { gatewayMigrations } from './store/gateway-migrations';
export { parseGatewayInput, type InputIssue } from './routes/parse-input';
export {
  gatewayRateLimit,
  defaultGatewayRateLimits,
  defaultEvidenceRateLimits,
  type GatewayRateLimits,
  type EvidenceRateLimits,
} from './routes/rate-limit';
export { createBearerAuth, type BearerAuth } from './routes/bearer-auth';
export { merchantRoutes, merchantBodyLimits, type MerchantRouteDeps } from './routes/merchant-routes';
export { refRoutes, refBodyLimit, type RefRouteDeps } from './routes/ref-routes';
export { createGateway, gatewayRoutes, gatewayRouteTable, type Gateway, type GatewayDeps } from './service/create-gateway';
export { consoleGatewayLogger, warnWhenPendingWithoutWorkers } from './service/gateway-logging';
export { createGatewayWorkers, type GatewayLogger, type GatewayWorkerOptions, type GatewayWorkers, type GatewayWorkersDeps } from './workers/gateway-workers';
export { startRecoveryWorker, recoveryBackoff, type RecoveryWorkerOptions, type RecoveryWorkerLogger } from './workers/recovery-worker';
export { startHousekeeping, type HousekeepingOptions, type HousekeepingLogger } from './workers/housekeeping';
export {
  startNotificationWorker,
  NotificationDeliveryError,
  defaultNotificationDeliverySettings,
  type NotificationWorker,
  type NotificationWorkerOptions,
  type NotificationLogger,
  type NotificationDeliverySettings,
} from './workers/notification-worker';
export { receiveRoutes, receiveCors, type ReceiveRouteDeps } from './routes/receive-routes';
export {
  recoverSettlementRoutes,
  recoverSettlementRequestSchema,
  recoverSettlementBodyLimit,
  type RecoverSettlementRouteDeps,
} from './routes/recovery-routes';
export { settlementHttpResponse } from './routes/settlement-http';
export {
  payPageRoutes,
  payPageHeaders,
  payPageContentSecurityPolicy,
  defaultTransactionExplorers,
  type PayPageRouteDeps,
} from './routes/pay-page-routes';
export { loadPayPageView, type PayPageView, type PayPageViewDeps } from './pay-page/pay-page-view';
export {
  renderPayPage,
  renderRefusalPage,
  networkLabel,
  type PayPageRenderOptions,
  type PayPageRefusal,
  type TransactionLink,
} from './pay-page/render-pay-page';
export { payPageAssets, type PayPageAsset, type PayPageAssets } from './pay-page/pay-assets';
export { formatTokenAmount } from './pay-page/usdc-amount';
export { escapeHtml } from './pay-page/html';
export {
  evidenceRoutes,
  createEvidenceAccess,
  verifyReceiptBodyLimit,
  type EvidenceAccess,
  type EvidenceAccessDeps,
  type EvidenceRouteDeps,
} from './routes/evidence-routes';
export * from './evidence';
export * from './payments';
export * from './notifications';
export { openApiRoutes, type OpenApiRouteDeps } from './routes/openapi-routes';
export * from './openapi';
