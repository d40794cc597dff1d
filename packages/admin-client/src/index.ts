/**
 * `@tollgate/admin-client`: typed client of the license service's Admin API — one group per resource,
 * an idempotency key on every mutation (reused across retries), dry runs by default on destructive
 * calls, typed errors carrying the server's code, and a response-size cap.
 *
 * @packageDocumentation
 */
export { createAdminClient, type AdminClient } from './client';
export type { AdminClientOptions } from './transport';
export type * from './transport-types';
export { AdminClientError, AdminApiError, AdminNetworkError, AdminTimeoutError, AdminResponseError } from './errors';
export * from './resources/licenses';
export * from './resources/machines';
export * from './resources/accounts';
export * from './resources/catalog';
export * from './resources/policies';
export * from './resources/products';
export * from './resources/billing';
export * from './resources/epochs';
export * from './resources/releases';
export * from './resources/asset-keks';
export * from './resources/integrity';
export * from './resources/audit';
export * from './resources/analytics';
export * from './resources/dsr';
export * from './resources/telemetry';
