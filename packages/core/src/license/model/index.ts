/**
 * The license domain model: licenses, policies, machines, accounts, and the catalog with its entitlement
 * resolution — records, schemas and SQL stores. The device protocol (`client-protocol/`), the Admin API's
 * operations (`admin/`) and the feature rooms all import it; it imports neither of them.
 *
 * @packageDocumentation
 */
export * from './accounts';
export * from './catalog';
export * from './licenses';
export * from './machines';
export * from './policies';
export type { AdminCursorPosition, AdminPage } from './page';
