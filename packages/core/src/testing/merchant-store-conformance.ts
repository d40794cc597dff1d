import { describeConformance, type ConformanceSuiteOptions } from './conformance';
import type { MerchantStoreConformanceFixture } from './gateway-stores-fixture';
import { defineCredentialCases } from './merchant-store-credential-cases';
import { defineRegistrationCases } from './merchant-store-registration-cases';

/**
 * Conformance suite of the `MerchantStore` port: challenges (single use, expiry, binding to payTo and
 * network), enrolment, credential recovery and attachment, credential rotation and revocation, payTo
 * retirement, tenant isolation, and races: 20 parallel registrations with one challenge → one,
 * concurrent first registrations of one payTo → one merchant, 20 parallel rotations → one. The race
 * cases are skipped, with the reason shown, on a fixture whose `engine` is `pglite` (one connection:
 * they would prove nothing); run the suite on a PostgreSQL server too.
 *
 * @param options - `name` and `open()` returning `{ merchants, reset, close }` over an empty database.
 * @example
 * ```ts
 * import { describeMerchantStoreConformance, openTestDatabase, testDatabaseEngines } from '@tollgate/core/testing';
 * import { coreMigrations, gatewayMigrations } from '@tollgate/core';
 * import { createSqlMerchantStore } from '@tollgate/core/gateway';
 * for (const engine of await testDatabaseEngines()) {
 *   describeMerchantStoreConformance({
 *     name: engine.name,
 *     open: async () => {
 *       const database = await openTestDatabase({ engine, migrations: [coreMigrations, gatewayMigrations] });
 *       return { ...database, merchants: createSqlMerchantStore(database.sql) };
 *     },
 *   });
 * }
 * ```
 */
export function describeMerchantStoreConformance(options: ConformanceSuiteOptions<MerchantStoreConformanceFixture>): void {
  describeConformance('MerchantStore', options, (fixture) => {
    defineRegistrationCases(fixture);
    defineCredentialCases(fixture);
  });
}
