import type { BodySpec, Route, RouteTable } from './types';

/**
 * Declares one route with its path params and body type inferred: in
 * `route({ method: 'GET', path: '/ref/:refId', handler })` the handler's `request.params.refId` is a
 * `string`, and with `body: { type: 'raw', maxBytes }` its `request.body` is a `Uint8Array`.
 *
 * @param definition - The route; returned unchanged.
 * @returns The same object, typed for a {@link RouteTable}.
 * @example
 * ```ts
 * import { route } from '@tollgate/core/http';
 * const getRef = route({
 *   method: 'GET',
 *   path: '/ref/:refId',
 *   handler: (req) => ({ status: 200, body: { refId: req.params.refId } }),
 * });
 * ```
 */
export function route<const Path extends string, const Spec extends BodySpec | undefined = undefined>(
  definition: Route<Path, Spec>,
): Route<Path, Spec> {
  return definition;
}

/**
 * Builds a {@link RouteTable} and checks it once, so a misconfigured table fails at startup rather than
 * on the first request: every path must start with `/` and have non-empty segments with valid `:name`
 * params, a method/path shape may be declared only once, and body limits must be positive integers.
 * The adapters run the same checks on tables built by hand.
 *
 * @param table - Routes, the error renderer and optional table-wide middleware.
 * @returns The same table.
 * @throws TypeError when the table is invalid.
 * @example
 * ```ts
 * import { renderGatewayError } from '@tollgate/core';
 * import { defineRoutes, route } from '@tollgate/core/http';
 * export const routes = defineRoutes({
 *   renderError: renderGatewayError,
 *   routes: [route({ method: 'GET', path: '/health', handler: () => ({ status: 200, body: { ok: true } }) })],
 * });
 * ```
 */
export function defineRoutes(table: RouteTable): RouteTable {
  validateRouteTable(table);
  return table;
}

const paramName = /^:[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Throws a `TypeError` naming the first problem of `table` (see {@link defineRoutes}).
 *
 * @param table - The table to check.
 */
export function validateRouteTable(table: RouteTable): void {
  if (typeof table.renderError !== 'function') throw new TypeError('route table needs a renderError function');
  const seen = new Set<string>();
  for (const entry of table.routes) {
    const where = `${entry.method} ${entry.path}`;
    if (!entry.path.startsWith('/')) throw new TypeError(`route ${where}: path must start with "/"`);
    const segments = entry.path === '/' ? [] : entry.path.slice(1).split('/');
    const names = new Set<string>();
    for (const segment of segments) {
      if (segment === '') throw new TypeError(`route ${where}: empty path segment`);
      if (segment.startsWith(':')) {
        if (!paramName.test(segment)) throw new TypeError(`route ${where}: invalid param segment "${segment}"`);
        if (names.has(segment)) throw new TypeError(`route ${where}: param "${segment}" appears twice`);
        names.add(segment);
      }
    }
    const shape = `${entry.method} /${segments.map((s) => (s.startsWith(':') ? ':' : s)).join('/')}`;
    if (seen.has(shape)) throw new TypeError(`route ${where}: another route already serves this method and path`);
    seen.add(shape);
    if (typeof entry.handler !== 'function') throw new TypeError(`route ${where}: handler must be a function`);
    if (entry.body) validateBodySpec(entry.body, where);
  }
}

function validateBodySpec(spec: BodySpec, where: string): void {
  if (!['json', 'cbor', 'raw'].includes(spec.type)) throw new TypeError(`route ${where}: unknown body type "${spec.type}"`);
  const isPositiveInteger = (value: unknown) => Number.isSafeInteger(value) && (value as number) > 0;
  if (!isPositiveInteger(spec.maxBytes)) throw new TypeError(`route ${where}: body maxBytes must be a positive integer`);
  if (spec.maxCompressedBytes !== undefined && !isPositiveInteger(spec.maxCompressedBytes)) {
    throw new TypeError(`route ${where}: body maxCompressedBytes must be a positive integer`);
  }
}
