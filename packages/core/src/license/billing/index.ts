// Public exports of the billing area: inbound billing webhooks and the queue that applies them.
export { billingAccessUntil, applyBillingEvent, type BillingApplyDeps, type BillingApplyResult } from './apply-billing-event';
export { type BillingEffect, type BillingEvent, type BillingEventParse, type BillingLicenseMapping } from './billing-event';
export { createSqlBillingEventStore, type BillingAcceptance, type BillingEventStatus, type BillingEventStore, type StoredBillingEvent } from './billing-event-store';
export { issueBillingLicense, type BillingIssueRefusal } from './billing-issue';
export {
  billingCheckoutTokenLabel,
  checkoutPriceIdPattern,
  checkoutTokenLifetime,
  signCheckoutToken,
  verifyCheckoutToken,
  type CheckoutTokenClaims,
} from './checkout-token';
export { checkoutTokenOperation, checkoutTokenRequestSchema } from './checkout-token-operation';
export { mapNewSubscription, type SubscriptionMapping, type SubscriptionMappingDeps } from './map-subscription';
export { purgeProcessedBillingEvents } from './billing-event-retention';
export { billingWebhookBodyLimit, billingWebhookPrefix, billingWebhookRoutes, type BillingWebhookDeps } from './billing-routes';
export {
  billingEventBackoff,
  billingEventMaxAttempts,
  processDueBillingEvents,
  type BillingProcessingDeps,
  type ProcessedBillingEvent,
} from './process-billing-events';
export { parseBillingEvent, recognizedBillingEvents } from './provider-events';
export {
  billingProviders,
  verifyWebhookSignature,
  webhookSignatureHeaders,
  webhookToleranceSeconds,
  type WebhookProvider,
  type WebhookSignatureCheck,
  type WebhookSignatureFailure,
} from './webhook-signature';
export type { SubscriptionInput } from '../model/licenses/subscription-store';
