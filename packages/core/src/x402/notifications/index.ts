export {
  notificationHeaderNames,
  signNotification,
  verifyNotification,
  NotificationSignatureError,
  type NotificationKey,
  type NotificationHeaders,
  type NotificationSignatureFailure,
  type VerifyNotificationParams,
} from './signature';
export { buildPaymentSettledNotification, serializeNotification, type PaymentSettledNotification } from './payload';
