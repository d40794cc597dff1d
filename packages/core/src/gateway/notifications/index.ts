export {
  notificationQueue,
  enqueuePaymentNotification,
  paymentNotificationJob,
  orderNotificationJob,
  orderNotificationJobPrefixes,
  type NotificationJob,
} from './notification-job';
export { checkNotificationUrl, notificationAddressAllowed, type NotificationUrlPolicy } from './notification-url';
export {
  NotificationTransportError,
  type NotificationTransport,
  type NotificationTransportFailure,
  type NotificationRequest,
  type NotificationResponse,
} from './notification-transport';
export {
  buildNotificationRequest,
  liveNotifyKeys,
  notificationUserAgent,
  notificationRequestHeaderNames,
  type SignedNotificationRequest,
} from './notification-request';
export {
  createNotificationDeliverer,
  classifyWebhookStatus,
  classifyWebhookFailure,
  webhookHost,
  type NotificationDeliverer,
  type NotificationDelivererDeps,
  type NotificationDeliveryOutcome,
  type NotificationRetryReason,
  type NotificationAbandonReason,
} from './notification-deliverer';
