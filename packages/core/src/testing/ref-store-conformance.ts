import { describeConformance, type ConformanceSuiteOptions } from './conformance';
import type { RefStoreConformanceFixture } from './gateway-stores-fixture';
import { defineRefCases } from './ref-store-cases';

/**
 * Conformance suite of the `RefStore` port: refs (ownership, active payTo only, invoice-id uniqueness,
 * immutable snapshot text, keyset order, idempotent revocation), tenant isolation, the receive route's
 * reads of a ref with its payTo's status, and a race: 10 parallel creations with one invoice id → one.
 * The race case is skipped, with the reason shown, on a fixture whose `engine` is `pglite` (one
 * connection: it would prove nothing); run the suite on a PostgreSQL server too. The suite registers
 * payTos and retires them through the fixture's `merchants`.
 *
 * @param options - `name` and `open()` returning `{ refs, merchants, reset, close }` over one empty database.
 * @example
 * ```ts
 * import { describeRefStoreConformance, openTestDatabase, testDatabaseEngines } from '@tollgate/core/testing';
 * import { coreMigrations, createSqlGatewayStores, gatewayMigrations } from '@tollgate/core';
 * for (const engine of await testDatabaseEngines()) {
 *   describeRefStoreConformance({
 *     name: engine.name,
 *     open: async () => {
 *       const database = await openTestDatabase({ engine, migrations: [coreMigrations, gatewayMigrations] });
 *       return { ...database, ...createSqlGatewayStores(database.sql) };
 *     },
 *   });
 * }
 * ```
 */
export function describeRefStoreConformance(options: ConformanceSuiteOptions<RefStoreConformanceFixture>): void {
  describeConformance('RefStore', options, (fixture) => {
    defineRefCases(fixture);
  });
}
