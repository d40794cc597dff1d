import { describeConformance, type ConformanceSuiteOptions } from './conformance';
import type { OrderStoreConformanceFixture } from './order-store-fixture';
import { defineOrderCases } from './order-store-order-cases';
import { defineOrderRaceCases } from './order-store-race-cases';
import { defineRefundCases } from './order-store-refund-cases';
import { defineSettlementCases } from './order-store-settlement-cases';

/**
 * Conformance suite of the `OrderStore` port. Orders: atomic creation with their ref, tenancy, keyset
 * listing with the unpaid/expired split, idempotent cancellation refused while a payment of the ref is
 * claimed. Refund intents: refund refs bound to the order's payment, the reservation that never exceeds
 * what is left (backed by the table's check, tried with a raw UPDATE when the fixture has `sql`),
 * idempotent rejection refused while a payment is claimed, expiry read at `now` and released at the next
 * write. Settlement (through `PaymentStore.completePayment`): orders paid, intents paid with their amount
 * moved to refunded, the `order.paid` / `order.refunded` / `refund.rejected` jobs and their payloads, and
 * one payment at a time on order and refund refs (`ref_used`). Races: 20 parallel refund intents on one
 * order, cancellation vs claim, rejection vs claim, a refund completion run twice at once, 20 parallel
 * payments of one refund ref. The race cases are skipped, with the reason shown, on a fixture whose `engine` is `pglite`
 * (one connection: they would prove nothing); run the suite on a PostgreSQL server too.
 *
 * The cases create merchants, claim and complete payments through the fixture's `merchants` and
 * `payments` (settlement effects are checked through `PaymentStore.completePayment`), and read the jobs
 * the stores enqueue through the fixture's `jobs` (or, for SQL stores, a `createSqlJobQueue` over `sql`).
 *
 * @param options - `name` and `open()` returning `{ orders, payments, refs, merchants, reset, close }` over one empty database.
 * @example
 * ```ts
 * import { describeOrderStoreConformance, openTestDatabase, testDatabaseEngines } from '@tollgate/core/testing';
 * import { coreMigrations, createSqlGatewayStores, gatewayMigrations } from '@tollgate/core';
 * for (const engine of await testDatabaseEngines()) {
 *   describeOrderStoreConformance({
 *     name: engine.name,
 *     open: async () => {
 *       const database = await openTestDatabase({ engine, migrations: [coreMigrations, gatewayMigrations] });
 *       return { ...database, ...createSqlGatewayStores(database.sql) };
 *     },
 *   });
 * }
 * ```
 */
export function describeOrderStoreConformance(options: ConformanceSuiteOptions<OrderStoreConformanceFixture>): void {
  describeConformance('OrderStore', options, (fixture) => {
    defineOrderCases(fixture);
    defineRefundCases(fixture);
    defineSettlementCases(fixture);
    defineOrderRaceCases(fixture);
  });
}
