export {
  notificationQueue,
  enqueuePaymentNotification,
  paymentNotificationJob,
  orderNotificationJob,
  orderNotificationJobPrefixes,
  type NotificationJob,
} from './notification-job';
export { checkNotificationUrl, notificationAddressAllowed, type NotificationUrlPolicy } from '../../webhooks/notification-url';
export {
  NotificationTransportError,
  type NotificationTransport,
  type NotificationTransportFailure,
  type NotificationRequest,
  type NotificationResponse,
} from '../../webhooks/notification-transport';
export {
  buildNotificationRequest,
  liveNotifyKeys,
  notificationUserAgent,
  notificationRequestHeaderNames,
  type SignedNotificationRequest,
} from './notification-request';
export { createNotificationDeliverer, type NotificationDeliverer, type NotificationDelivererDeps } from './notification-deliverer';
export {
  classifyWebhookStatus,
  classifyWebhookFailure,
  webhookHost,
  type NotificationDeliveryOutcome,
  type NotificationRetryReason,
  type NotificationAbandonReason,
} from '../../webhooks/webhook-classification';
