/**
 * The Admin API's scopes (license spec, "Authentication" 3). A token holds a set of them; a route needs
 * one or more. A read scope (`machines:r`) is satisfied by its read-write counterpart (`machines:rw`).
 *
 * @example
 * ```ts
 * import { adminScopes } from '@tollgate/core/license';
 * adminScopes.includes('licenses:rw'); // true
 * ```
 */
export const adminScopes = [
  'products:rw',
  'catalog:rw',
  'policies:rw',
  'licenses:rw',
  'machines:rw',
  'machines:r',
  'accounts:rw',
  'revoke',
  'releases:rw',
  'epochs:rw',
  'audit:r',
  'analytics:r',
  'dsr:rw',
  'sign:manifest',
] as const;

/** One Admin API scope. */
export type AdminScope = (typeof adminScopes)[number];

/**
 * True when `value` names a scope.
 *
 * @param value - Anything.
 * @returns Whether it is one of {@link adminScopes}.
 * @example
 * ```ts
 * import { isAdminScope } from '@tollgate/core/license';
 * isAdminScope('revoke'); // true
 * ```
 */
export function isAdminScope(value: unknown): value is AdminScope {
  return typeof value === 'string' && (adminScopes as readonly string[]).includes(value);
}

/**
 * Whether a token holding `held` may use a route needing `needed`: the scope itself, or for a read scope
 * (`x:r`) its read-write counterpart (`x:rw`).
 *
 * @param held - The token's scopes.
 * @param needed - The route's scope.
 * @returns True when satisfied.
 * @example
 * ```ts
 * import { scopeSatisfied } from '@tollgate/core/license';
 * scopeSatisfied(['machines:rw'], 'machines:r'); // true
 * scopeSatisfied(['machines:r'], 'machines:rw'); // false
 * ```
 */
export function scopeSatisfied(held: readonly AdminScope[], needed: AdminScope): boolean {
  if (held.includes(needed)) return true;
  return needed.endsWith(':r') && held.includes(`${needed}w` as AdminScope);
}
