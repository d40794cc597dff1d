/**
 * Merchant notification delivery for the gateway server: its configuration from the environment (the
 * worker itself is `startNotificationWorker` in `@tollgate/core/gateway`, run by `createGateway`).
 *
 * @module
 */
export { notificationConfigFromEnv, defaultNotificationConfig, type NotificationConfig } from './notification-config';
