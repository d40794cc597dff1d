/**
 * `@tollgate/admin-client`: typed client of the license service's Admin API (resources, idempotency keys,
 * dry runs, response-size cap). Its resources arrive with the Admin API itself; the package is part of the
 * workspace now so that it is versioned with the other four.
 *
 * @packageDocumentation
 */
export {};
