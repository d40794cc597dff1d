/**
 * `@tollgate/core/pglite`: the embedded {@link SqlClient} driver over `@electric-sql/pglite`
 * (an optional peer dependency of `@tollgate/core`).
 *
 * @packageDocumentation
 */
export { createPgliteClient, type PgliteClientOptions, type PgliteSqlClient } from './pglite-client';
