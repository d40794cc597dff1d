import { describeConformance, type ConformanceSuiteOptions } from './conformance';
import type { PaymentStoreConformanceFixture } from './gateway-stores-fixture';
import { definePaymentCases } from './payment-store-cases';
import { defineRecoveryCases } from './payment-store-recovery-cases';

/**
 * Conformance suite of the `PaymentStore` port: payments (claims by id and by authorization, claims
 * refused on a revoked ref or retired payTo, lease fencing, release, takeover, the one-way transitions
 * with their recovery and notification jobs enqueued atomically) with races: 20 parallel claims of one
 * payment id → one, 20 parallel claims of one authorization → one, several takers of one expired lease
 * → one, 10 parallel completions → one stored answer and one notification; the recovery of pending
 * payments (stranded payments whose recovery job died or is gone, the next generation's job enqueued
 * with its renewal) with a race: sweeps renewing one payment at once → renewed once. The race cases are
 * skipped, with the reason shown, on a fixture whose `engine` is `pglite` (one connection: they would
 * prove nothing); run the suite on a PostgreSQL server too.
 *
 * The cases create merchants and refs through the fixture's `merchants` and `refs`, and read the jobs
 * the store enqueues through the fixture's `jobs` (or, for SQL stores, a `createSqlJobQueue` over the
 * fixture's `sql`; spreading `openTestDatabase(...)` provides it).
 *
 * @param options - `name` and `open()` returning `{ payments, refs, merchants, reset, close }` over one empty database.
 * @example
 * ```ts
 * import { describePaymentStoreConformance, openTestDatabase, testDatabaseEngines } from '@tollgate/core/testing';
 * import { coreMigrations, createSqlGatewayStores, gatewayMigrations } from '@tollgate/core';
 * for (const engine of await testDatabaseEngines()) {
 *   describePaymentStoreConformance({
 *     name: engine.name,
 *     open: async () => {
 *       const database = await openTestDatabase({ engine, migrations: [coreMigrations, gatewayMigrations] });
 *       return { ...database, ...createSqlGatewayStores(database.sql) };
 *     },
 *   });
 * }
 * ```
 */
export function describePaymentStoreConformance(options: ConformanceSuiteOptions<PaymentStoreConformanceFixture>): void {
  describeConformance('PaymentStore', options, (fixture) => {
    definePaymentCases(fixture);
    defineRecoveryCases(fixture);
  });
}
