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
