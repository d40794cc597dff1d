import type { SqlClient } from '../../storage/sql-client';
import type { PaymentStore } from './payment-store';
import { listStrandedPaymentsInSql, renewRecoveryInSql } from './sql-payment-recovery';
import {
  claimPaymentInSql,
  completePaymentInSql,
  failPaymentInSql,
  findPaymentInSql,
  getPaymentInSql,
  listAbandonedPaymentsInSql,
  markPaymentPendingInSql,
  releasePaymentInSql,
  recordEvidenceScanInSql,
  recordTxHashInSql,
  startSettleInSql,
  takeOverPaymentInSql,
} from './sql-payments';

/**
 * The {@link PaymentStore} on PostgreSQL (PGlite or a server) through the `SqlClient` port. Every
 * atomic step is one statement or one transaction in SQL (see the port's contract), so any number of
 * gateway instances can share the database. The claim reads the `gateway_refs` and `gateway_pay_tos`
 * rows that `createSqlRefStore` and `createSqlMerchantStore` write, in the claim's own statement.
 *
 * Payment transitions that enqueue jobs (the settlement-recovery job, the merchant notification) write
 * them to `tollgate_jobs` in the same transaction, stamped with the transition's `now`.
 *
 * @param sql - Database with `coreMigrations` and `gatewayMigrations` applied.
 * @returns The store.
 * @example
 * ```ts
 * import { coreMigrations, gatewayMigrations, runMigrations } from '@tollgate/core';
 * import { createSqlPaymentStore } from '@tollgate/core/gateway';
 * import { createPgliteClient } from '@tollgate/core/pglite';
 * const sql = await createPgliteClient({ dataDir: './data' });
 * await runMigrations(sql, coreMigrations);
 * await runMigrations(sql, gatewayMigrations);
 * const payments = createSqlPaymentStore(sql);
 * ```
 */
export function createSqlPaymentStore(sql: SqlClient): PaymentStore {
  return {
    claimPayment: (claim) => claimPaymentInSql(sql, claim),
    findPayment: (lookup) => findPaymentInSql(sql, lookup),
    getPayment: (paymentId) => getPaymentInSql(sql, paymentId),
    startSettle: (params) => startSettleInSql(sql, params),
    recordTxHash: (params) => recordTxHashInSql(sql, params),
    recordEvidenceScan: (params) => recordEvidenceScanInSql(sql, params),
    releasePayment: (params) => releasePaymentInSql(sql, params),
    listAbandonedPayments: (params) => listAbandonedPaymentsInSql(sql, params),
    takeOverPayment: (params) => takeOverPaymentInSql(sql, params),
    listStrandedPayments: (params) => listStrandedPaymentsInSql(sql, params),
    renewRecovery: (params) => renewRecoveryInSql(sql, params),
    markPaymentPending: (params) => markPaymentPendingInSql(sql, params),
    completePayment: (completion) => completePaymentInSql(sql, completion),
    failPayment: (failure) => failPaymentInSql(sql, failure),
  };
}
