/**
 * `@tollgate/core/pg`: the {@link SqlClient} driver for a PostgreSQL server over a `pg` pool (an
 * optional peer dependency of `@tollgate/core`). Node only.
 *
 * @packageDocumentation
 */
export { createPgClient, type PgClientOptions } from './node-pg-client';
