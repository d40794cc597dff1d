import type { SqlClient } from '../../storage/sql-client';
import type { GatewayStores } from './gateway-stores';
import { createSqlMerchantStore } from './sql-merchant-store';
import { createSqlOrderStore } from './sql-order-store';
import { createSqlPaymentStore } from './sql-payment-store';
import { createSqlRefStore } from './sql-ref-store';

/**
 * The SQL stores of the gateway over one database: `createSqlMerchantStore`, `createSqlRefStore`,
 * `createSqlPaymentStore` and `createSqlOrderStore` on the same `sql`.
 *
 * @param sql - Database with `coreMigrations` and `gatewayMigrations` applied.
 * @returns `{ merchants, refs, payments, orders }`.
 * @example
 * ```ts
 * import { coreMigrations, createSqlGatewayStores, gatewayMigrations, runMigrations } from '@tollgate/core';
 * import { createPgliteClient } from '@tollgate/core/pglite';
 * const sql = await createPgliteClient({ dataDir: './data' });
 * await runMigrations(sql, coreMigrations);
 * await runMigrations(sql, gatewayMigrations);
 * const { merchants, refs, payments, orders } = createSqlGatewayStores(sql);
 * ```
 */
export function createSqlGatewayStores(sql: SqlClient): GatewayStores {
  return {
    merchants: createSqlMerchantStore(sql),
    refs: createSqlRefStore(sql),
    payments: createSqlPaymentStore(sql),
    orders: createSqlOrderStore(sql),
  };
}
