import { describeConformance, type ConformanceSuiteOptions } from './conformance';
import { defineCredentialCases } from './gateway-store-credential-cases';
import type { GatewayStoreConformanceFixture } from './gateway-store-fixture';
import { defineRegistrationCases } from './gateway-store-merchant-cases';
import { definePaymentCases } from './gateway-store-payment-cases';
import { defineRecoveryCases } from './gateway-store-recovery-cases';
import { defineRefCases } from './gateway-store-ref-cases';

/**
 * Conformance suite of the `GatewayStore` port: challenges (single use, expiry, binding to payTo and
 * network), enrolment, credential recovery and attachment, credential rotation and revocation,
 * payTo retirement, refs (ownership, invoice-id uniqueness, immutable snapshot text, keyset order,
 * idempotent revocation), tenant isolation, and races: 20 parallel registrations with one challenge →
 * one, concurrent first registrations of one payTo → one merchant, 20 parallel rotations → one,
 * 10 parallel creations with one invoice id → one; payments (claims by id and by authorization, lease
 * fencing, release, takeover, the one-way transitions with their recovery and notification jobs enqueued
 * atomically) with races: 20 parallel claims of one payment id → one, 20 parallel claims of one
 * authorization → one, 10 parallel completions → one stored answer and one notification; the recovery
 * of pending payments (stranded payments whose recovery job died or is gone, renewed once by racing
 * sweeps, the next generation's job enqueued with it).
 *
 * The payment cases read the jobs the store enqueues through the fixture's `jobs` (or, for SQL stores,
 * a `createSqlJobQueue` over the fixture's `sql`; spreading `openTestDatabase(...)` provides it).
 *
 * @param options - `name` and `open()` returning `{ store, reset, close }` over an empty database.
 * @example
 * ```ts
 * import { describeGatewayStoreConformance, openTestDatabase, testDatabaseEngines } from '@tollgate/core/testing';
 * import { coreMigrations, createSqlGatewayStore, gatewayMigrations } from '@tollgate/core';
 * for (const engine of await testDatabaseEngines()) {
 *   describeGatewayStoreConformance({
 *     name: engine.name,
 *     open: async () => {
 *       const database = await openTestDatabase({ engine, migrations: [coreMigrations, gatewayMigrations] });
 *       return { ...database, store: createSqlGatewayStore(database.sql) };
 *     },
 *   });
 * }
 * ```
 */
export function describeGatewayStoreConformance(options: ConformanceSuiteOptions<GatewayStoreConformanceFixture>): void {
  describeConformance('GatewayStore', options, (fixture) => {
    defineRegistrationCases(fixture);
    defineCredentialCases(fixture);
    defineRefCases(fixture);
    definePaymentCases(fixture);
    defineRecoveryCases(fixture);
  });
}
