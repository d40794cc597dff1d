import type { SqlClient } from '../../storage/sql-client';
import type { OrderStore } from './order-store';
import { cancelOrderInSql, createOrderInSql, getOrderInSql, listOrdersInSql } from './sql-orders';
import { createRefundInSql, getRefundByRefInSql, getRefundInSql, listRefundsInSql, rejectRefundInSql } from './sql-refunds';

/**
 * The {@link OrderStore} on PostgreSQL (PGlite or a server) through the `SqlClient` port, over the same
 * database as the ref and payment stores (see the port's contract for the locking protocol).
 *
 * @param sql - Database with `coreMigrations` and `gatewayMigrations` applied.
 * @returns The store.
 * @example
 * ```ts
 * import { coreMigrations, gatewayMigrations, runMigrations } from '@tollgate/core';
 * import { createSqlOrderStore } from '@tollgate/core/gateway';
 * import { createPgliteClient } from '@tollgate/core/pglite';
 * const sql = await createPgliteClient({ dataDir: './data' });
 * await runMigrations(sql, coreMigrations);
 * await runMigrations(sql, gatewayMigrations);
 * const orders = createSqlOrderStore(sql);
 * ```
 */
export function createSqlOrderStore(sql: SqlClient): OrderStore {
  return {
    createOrder: (order) => createOrderInSql(sql, order),
    getOrder: (params) => getOrderInSql(sql, params),
    listOrders: (query) => listOrdersInSql(sql, query),
    cancelOrder: (params) => cancelOrderInSql(sql, params),
    createRefund: (refund) => createRefundInSql(sql, refund),
    getRefund: (params) => getRefundInSql(sql, params),
    listRefunds: (params) => listRefundsInSql(sql, params),
    rejectRefund: (rejection) => rejectRefundInSql(sql, rejection),
    getRefundByRef: (refId) => getRefundByRefInSql(sql, refId),
  };
}
