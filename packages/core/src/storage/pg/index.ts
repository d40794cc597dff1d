/**
 * `@tollgate/core/pg`: the {@link SqlClient} driver for a PostgreSQL server over a `pg` pool (an
 * optional peer dependency of `@tollgate/core`). Node only.
 *
 * @packageDocumentation
 */
// This entry is Node-only by design (it is the `/pg` subpath); its implementation lives in *.node.ts.
// eslint-disable-next-line no-restricted-imports
export { createPgClient, type PgClientOptions } from './pg-client.node';
