import { describeConformance, type ConformanceSuiteOptions } from './conformance';
import { defineCredentialCases } from './gateway-store-credential-cases';
import type { GatewayStoreConformanceFixture } from './gateway-store-fixture';
import { defineRegistrationCases } from './gateway-store-merchant-cases';
import { defineRefCases } from './gateway-store-ref-cases';

/**
 * Conformance suite of the `GatewayStore` port: challenges (single use, expiry, binding to payTo and
 * network), enrolment, credential recovery and attachment, credential rotation and revocation,
 * payTo retirement, refs (ownership, invoice-id uniqueness, immutable snapshot text, keyset order,
 * idempotent revocation), tenant isolation, and races: 20 parallel registrations with one challenge →
 * one, concurrent first registrations of one payTo → one merchant, 20 parallel rotations → one,
 * 10 parallel creations with one invoice id → one.
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
  });
}
