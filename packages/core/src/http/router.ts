import { RequestError } from '../errors/request';
import { percentDecode } from './request-target';
import type { Route } from './types';

/** The outcome of routing: a route with its decoded params, or the refusal to send. */
export type RouteMatch =
  | { readonly kind: 'route'; readonly route: Route; readonly params: Record<string, string> }
  | { readonly kind: 'refusal'; readonly error: RequestError; readonly allow?: readonly string[] };

/** Finds the route for a method and a raw path. */
export interface Router {
  /**
   * @param method - The request method.
   * @param path - The path as sent (percent-encoded).
   * @returns The matched route, or `not_found` / `method_not_allowed` (with the allowed methods) /
   *   `malformed_request` (invalid percent-encoding) as a refusal. Never throws.
   */
  match(method: string, path: string): RouteMatch;
  /** True when some route serves `path` with any method (used by `fallthrough` adapters). Never throws. */
  servesPath(path: string): boolean;
}

interface Pattern {
  // One entry per segment: the literal text, or null for a `:param` segment.
  readonly segments: readonly (string | null)[];
  // Param names belong to each route: `GET /ref/:refId` and `DELETE /ref/:id` share one pattern.
  readonly byMethod: Map<string, { readonly route: Route; readonly names: readonly string[] }>;
}

/**
 * Compiles routes into a router. Literal segments are compared after percent-decoding, and a literal
 * segment wins over a `:param` segment at the same position whatever the declaration order, so
 * `/refs/export` beats `/refs/:id`. Matching is case-sensitive and exact: a trailing slash is a
 * different path. A `HEAD` request uses the path's `GET` route unless a `HEAD` route is declared.
 *
 * @param routes - Routes already checked by `validateRouteTable`.
 * @returns The router.
 */
export function compileRouter(routes: readonly Route[]): Router {
  const patterns = new Map<string, Pattern>();
  for (const entry of routes) {
    const raw = entry.path === '/' ? [] : entry.path.slice(1).split('/');
    const segments = raw.map((s) => (s.startsWith(':') ? null : s));
    const shape = segments.map((s) => (s === null ? ':' : `=${s}`)).join('/');
    let pattern = patterns.get(shape);
    if (!pattern) {
      pattern = { segments, byMethod: new Map() };
      patterns.set(shape, pattern);
    }
    const names = raw.filter((s) => s.startsWith(':')).map((s) => s.slice(1));
    pattern.byMethod.set(entry.method, { route: entry, names });
  }
  const ordered = [...patterns.values()].sort(bySpecificity);

  function find(path: string): { pattern: Pattern; values: string[] } | undefined {
    const decoded = splitPath(path);
    for (const pattern of ordered) {
      if (pattern.segments.length !== decoded.length) continue;
      const values: string[] = [];
      const fits = pattern.segments.every((literal, i) => {
        const segment = decoded[i] as string;
        if (literal !== null) return literal === segment;
        values.push(segment);
        // An empty segment never fills a param: `/ref/` is not `/ref/:refId` with an empty id.
        return segment !== '';
      });
      if (fits) return { pattern, values };
    }
    return undefined;
  }

  return {
    match(method, path) {
      let found: ReturnType<typeof find>;
      try {
        found = find(path);
      } catch (error) {
        return { kind: 'refusal', error: error as RequestError };
      }
      if (!found) return { kind: 'refusal', error: new RequestError('not_found', 'No endpoint at this path.') };
      const { pattern, values } = found;
      const chosen = pattern.byMethod.get(method) ?? (method === 'HEAD' ? pattern.byMethod.get('GET') : undefined);
      if (!chosen) {
        const allow = allowedMethods(pattern);
        return {
          kind: 'refusal',
          error: new RequestError('method_not_allowed', `This endpoint does not accept ${method.slice(0, 16)}.`, {
            details: { allow },
          }),
          allow,
        };
      }
      const params = Object.create(null) as Record<string, string>;
      chosen.names.forEach((name, i) => (params[name] = values[i] as string));
      return { kind: 'route', route: chosen.route, params };
    },
    servesPath(path) {
      try {
        return find(path) !== undefined;
      } catch {
        return false;
      }
    },
  };
}

function splitPath(path: string): string[] {
  if (path === '/') return [];
  return path.slice(1).split('/').map((segment) => percentDecode(segment));
}

function allowedMethods(pattern: Pattern): string[] {
  const methods = new Set(pattern.byMethod.keys());
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

// Literal segments sort before params at the first position where two patterns differ.
function bySpecificity(a: Pattern, b: Pattern): number {
  const length = Math.min(a.segments.length, b.segments.length);
  for (let i = 0; i < length; i++) {
    const aParam = a.segments[i] === null;
    const bParam = b.segments[i] === null;
    if (aParam !== bParam) return aParam ? 1 : -1;
  }
  return 0;
}
