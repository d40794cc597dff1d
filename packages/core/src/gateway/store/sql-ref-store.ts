import type { SqlClient } from '../../storage/sql-client';
import type { RefStore } from './ref-store';
import { createRefInSql, getPaymentStatusInSql, getPaymentTargetInSql, getRefInSql, listRefsInSql, revokeRefInSql } from './sql-refs';

/**
 * The {@link RefStore} on PostgreSQL (PGlite or a server) through the `SqlClient` port. Every atomic
 * step is one statement or one transaction in SQL (see the port's contract), so any number of gateway
 * instances can share the database.
 *
 * @param sql - Database with `coreMigrations` and `gatewayMigrations` applied.
 * @returns The store.
 * @example
 * ```ts
 * import { coreMigrations, gatewayMigrations, runMigrations } from '@tollgate/core';
 * import { createSqlRefStore } from '@tollgate/core/gateway';
 * import { createPgliteClient } from '@tollgate/core/pglite';
 * const sql = await createPgliteClient({ dataDir: './data' });
 * await runMigrations(sql, coreMigrations);
 * await runMigrations(sql, gatewayMigrations);
 * const refs = createSqlRefStore(sql);
 * ```
 */
export function createSqlRefStore(sql: SqlClient): RefStore {
  return {
    createRef: (ref) => createRefInSql(sql, ref),
    getRef: (id) => getRefInSql(sql, id),
    listRefs: (query) => listRefsInSql(sql, query),
    revokeRef: (params) => revokeRefInSql(sql, params),
    getPaymentTarget: (refId) => getPaymentTargetInSql(sql, refId),
    getPaymentStatus: (refId) => getPaymentStatusInSql(sql, refId),
  };
}
