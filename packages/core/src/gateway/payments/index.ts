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
export { createSettlementRecovery, type SettlementRecovery, type ClaimTakeover } from './recovery';
export { createPaymentEvidence, type PaymentEvidence, type SettlementEvidenceVerdict, type TransferConfirmation } from './payment-evidence';
export { searchSettlementEvidence, type EvidenceSearchOutcome, type EvidenceSearchParams } from './evidence-search';
export { createSettlement, type Settlement, type SettlementRequest, type SettlementResult } from './settlement';
export { createClaimHolder, type ClaimHolder, type SettlementStep } from './claim-holder';
export { createPayments, type Payments } from './payments';
