// Public exports of analytics metric subscriptions (signed, retried, SSRF-safe webhook deliveries).
export {
  subscriptionSchedules,
  subscriptionDeliveryDelayMs,
  subscriptionPeriodAt,
  subscriptionDueAt,
  dueSubscriptionPeriods,
  subscriptionPeriodDays,
  type SubscriptionSchedule,
  type SubscriptionPeriod,
} from './subscription-schedule';
export { subscriptionSecretSealLabel, createSubscriptionSigningKey, openSubscriptionSigningKey, type SubscriptionSigningKey } from './subscription-secret';
export {
  subscriptionLimits,
  createSqlMetricSubscriptionStore,
  type MetricSubscriptionStore,
  type MetricSubscriptionRecord,
  type NewMetricSubscription,
  type SubscriptionLimitBreach,
} from './subscription-store';
export { createSqlDeliveryStore, deliveryIdOf, type DeliveryStore, type ClaimedDelivery, type DeliveryAttemptRecord } from './delivery-store';
export {
  subscriptionDeliveryEvent,
  maxSubscriptionBodyBytes,
  subscriptionDeliveryBody,
  createSubscriptionDeliverer,
  type SubscriptionMetrics,
  type SubscriptionMetricQuery,
  type SubscriptionAttemptOutcome,
  type SubscriptionDelivererDeps,
} from './subscription-delivery';
export { subscriptionOperations, type SubscriptionOperationsDeps, type SubscriptionDestinationCheck } from './subscription-operations';
