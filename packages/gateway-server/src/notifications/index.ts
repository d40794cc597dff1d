/**
 * Merchant notification delivery for the gateway server: the worker and its configuration.
 *
 * @module
 */
export { notificationConfigFromEnv, defaultNotificationConfig, type NotificationConfig } from './notification-config';
export {
  startNotificationWorker,
  NotificationDeliveryError,
  type NotificationWorker,
  type NotificationWorkerOptions,
  type NotificationLogger,
} from './notification-worker';
