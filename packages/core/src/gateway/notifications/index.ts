export { notificationQueue, enqueuePaymentNotification, type NotificationJob } from './notification-job';
