import { defineMigrations, type MigrationSet } from '../../storage/migrations/define-migrations';
import merchantsSql from './migrations/001_merchants.sql';
import refsSql from './migrations/002_refs.sql';
import paymentsSql from './migrations/003_payments.sql';
import paymentRecoverySql from './migrations/004_payment_recovery.sql';
import paymentEvidenceSql from './migrations/005_payment_evidence.sql';
import ordersSql from './migrations/006_orders.sql';
import exclusiveRefsSql from './migrations/007_exclusive_refs.sql';
import recordedAfterCloseSql from './migrations/008_recorded_after_close.sql';

/**
 * The gateway's tables (`gateway_challenges`, `gateway_merchants`, `gateway_pay_tos`,
 * `gateway_credentials`, `gateway_refs`, `gateway_payments`, `gateway_orders`, `gateway_refunds`): the `gateway` migration domain. Apply
 * after `coreMigrations` (payments enqueue jobs on `tollgate_jobs`).
 *
 * @example
 * ```ts
 * import { coreMigrations, gatewayMigrations, runMigrations } from '@tollgate/core';
 * await runMigrations(sql, coreMigrations);
 * await runMigrations(sql, gatewayMigrations);
 * ```
 */
export const gatewayMigrations: MigrationSet = defineMigrations('gateway', {
  '001_merchants.sql': merchantsSql,
  '002_refs.sql': refsSql,
  '003_payments.sql': paymentsSql,
  '004_payment_recovery.sql': paymentRecoverySql,
  '005_payment_evidence.sql': paymentEvidenceSql,
  '006_orders.sql': ordersSql,
  '007_exclusive_refs.sql': exclusiveRefsSql,
  '008_recorded_after_close.sql': recordedAfterCloseSql,
});
