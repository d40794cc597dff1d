/**
 * `@tollgate/core/testing`: conformance suites for the storage ports (run them against your own
 * implementations; they import `vitest`, an optional peer dependency) and, for Node, fast throwaway
 * test databases on PGlite or a PostgreSQL server.
 *
 * @packageDocumentation
 */
export { describeConformance, type ConformanceFixture, type ConformanceSuiteOptions } from './conformance';
export { describeSqlClientConformance, type SqlConformanceFixture } from './sql-client-conformance';
export { describeMigrationRunnerConformance } from './migration-runner-conformance';
export { describeJobQueueConformance } from './job-queue-conformance';
export { conformanceEpoch, type JobQueueConformanceFixture } from './job-queue-fixture';
export { describeRateLimiterConformance, type RateLimiterConformanceFixture } from './rate-limiter-conformance';
export { describeMerchantStoreConformance } from './merchant-store-conformance';
export { describeRefStoreConformance } from './ref-store-conformance';
export { describePaymentStoreConformance } from './payment-store-conformance';
export { describeOrderStoreConformance } from './order-store-conformance';
export { type OrderStoreConformanceFixture } from './order-store-fixture';
export {
  gatewayConformanceEpoch,
  challengeFor,
  enrollRequest,
  enrollMerchant,
  refFor,
  type GatewayStoresFixtureEngine,
  type MerchantStoreConformanceFixture,
  type RefStoreConformanceFixture,
  type PaymentStoreConformanceFixture,
  type EnrolledMerchant,
} from './gateway-stores-fixture';
export { raceCase, singleConnectionSkipReason, type RaceFixture } from './race-case';
export { describeAdminFoundationConformance, type AdminFoundationConformanceFixture } from './admin-foundation-conformance';
export { describeAuditLogConformance, type AuditLogConformanceFixture } from './audit-log-conformance';
export { seededRandom, mutateBytes, randomCbor, type SeededRandom, type RandomCborOptions } from './fuzz-values';
// Node-only helpers (node:fs, drivers), which make this subpath Node-only. Node-only files are
// imported as `*.node.js`: tsup's native-addon plugin captures every specifier ending in `.node`.
export { openTestDatabase, pgliteTestTemplate, type TestDatabase, type OpenTestDatabaseOptions } from './node-test-database';
export { testDatabaseEngines, redactConnectionString, testDatabaseUrlVariable, type TestEngine } from './node-test-engines';
export { createScratchDatabase, dropScratchDatabases, testRunIdVariable, type ScratchDatabase } from './node-scratch-databases';
export { ensurePgliteTemplate, testCacheDir, type PgliteTemplateOptions } from './node-pglite-template';
