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
export { buildPaymentSettledNotification, type PaymentSettledNotification } from './payload';
export {
  merchantNotificationEvents,
  orderNotificationId,
  serializeNotification,
  type MerchantNotification,
  type MerchantNotificationEvent,
  type OrderPaidNotification,
  type OrderRefundedNotification,
  type OrderPaymentData,
  type RefundRejectedNotification,
} from './order-payloads';
