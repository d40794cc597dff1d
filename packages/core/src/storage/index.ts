export type {
  SqlClient,
  SqlParam,
  SqlRow,
  SqlQueryResult,
  SqlQueryOptions,
  SqlIsolationLevel,
  SqlTransactionOptions,
} from './sql-client';
export { SqlError, SqlState, toSqlError, isUniqueViolation, isSerializationFailure, type SqlErrorFields } from './sql-error';
export { encodeSqlParam, encodeSqlParams } from './sql-params';
export { decodeSqlValue, decodedTypeOids, parseTimestamptz, parseBytea } from './sql-decode';
export { parsePgArrayLiteral, type PgArrayElements } from './array-literal';
export { createTransactionScope, transactionModeSql, withSerializationRetry, type SqlSession } from './sql-transaction';
export { MigrationError, type MigrationErrorCode } from './migrations/migration-error';
export { defineMigrations, migrationChecksum, type Migration, type MigrationSet } from './migrations/define-migrations';
export { runMigrations, migrationsTable, type MigrationReport } from './migrations/run-migrations';
export { coreMigrations } from './migrations/core-migrations';
export type {
  Job,
  JobStatus,
  JobQueue,
  JobQueueOptions,
  EnqueueOptions,
  EnqueueResult,
  BackoffOptions,
} from './jobs/job-queue';
export { retryDelayMs, defaultBackoff } from './jobs/backoff';
export { createSqlJobQueue } from './jobs/sql-job-queue';
export { runWorker, type RunWorkerOptions } from './jobs/run-worker';
export {
  assertRateLimitInput,
  type RateLimiter,
  type RateLimitRule,
  type RateLimitDecision,
} from './rate-limit/rate-limiter';
export { gcraStep, gcraRefilledAtMs, type GcraState } from './rate-limit/gcra';
export { createSqlRateLimiter, sqlRateLimitUpsert, sqlRateLimitDecision, sqlRateLimiterDatabase, type SqlRateLimitParams } from './rate-limit/sql-rate-limiter';
export { createMemoryRateLimiter, type MemoryRateLimiterOptions } from './rate-limit/memory-rate-limiter';
export { pingSql } from './sql-ping';
