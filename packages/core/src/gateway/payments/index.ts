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
export {
  authorizationPaymentId,
  paymentFingerprint,
  identifyPayment,
  paymentConflict,
  assertSamePayment,
  assertSamePaymentOrTwin,
  isSettledTwin,
  type PaymentIdentity,
  type PaymentConflictReason,
} from './payment-identity';
export { createReceiptIssuer, notificationIdOf, type ReceiptIssuer, type CompletionParams } from './receipt-issuer';
export { buildRefundSettlementResponse, type RefundSettlementBody } from './refund-settlement';
export {
  settlementRecoveryQueue,
  settlementRecoveryMaxAttempts,
  settlementRecoveryJobKey,
  enqueueSettlementRecovery,
  type SettlementRecoveryJob,
} from './recovery-job';
export { createSettlementRecovery, type SettlementRecovery, type ClaimTakeover, type AbandonedClaimRelief } from './recovery';
export {
  createSettlementRecoveryService,
  type SettlementRecoveryService,
  type SettlementRecoveryServiceDeps,
  type RecoverSettlementRequest,
} from './recover-settlement';
export { recoveryAnswers, type RecoveryAnswers, type RecoveryResult, type RecoveryPendingReason, type NotSettledReason } from './recovery-result';
export { createPaymentEvidence, type PaymentEvidence, type EvidenceTarget, type SettlementEvidenceVerdict, type TransferConfirmation } from './payment-evidence';
export { searchSettlementEvidence, type EvidenceSearchOutcome, type EvidenceSearchParams } from './evidence-search';
export { createSettlement, type Settlement, type SettlementRequest, type SettlementResult } from './settlement';
export { createClaimHolder, type ClaimHolder, type SettlementStep } from './claim-holder';
export { createPayments, type Payments } from './payments';
