export { toX402Network } from './x402-network';
export { createBoundedCache, type BoundedCache } from './bounded-cache';
export {
  defaultPaymentSettings,
  resolvePaymentSettings,
  type PaymentSettings,
  type PaymentOptions,
  type PaymentDeps,
  type PaymentEvent,
  type SettlementChainClient,
} from './payment-deps';
export { createPaymentContexts, type PaymentContexts, type PaymentContext, type PaymentTerms, type ReceiveRequest } from './payment-context';
export { createNegotiation, paymentRequiredMessage, type Negotiation, type NegotiatedPayment } from './negotiation';
export { createPaymentChecks, type PaymentChecks } from './payment-checks';
export { authorizationPaymentId, paymentFingerprint, identifyPayment, type PaymentIdentity } from './payment-identity';
export { createReceiptIssuer, notificationIdOf, type ReceiptIssuer } from './receipt-issuer';
export {
  settlementRecoveryQueue,
  settlementRecoveryMaxAttempts,
  settlementRecoveryJobKey,
  enqueueSettlementRecovery,
  type SettlementRecoveryJob,
} from './recovery-job';
export { createSettlementRecovery, evidenceMarginBlocks, type SettlementRecovery, type SettlementEvidenceVerdict, type ClaimTakeover } from './recovery';
export { watchHeadBlock } from './head-block';
export { createSettlement, type Settlement, type SettlementRequest, type SettlementResult } from './settlement';
export { createPayments, type Payments } from './payments';
