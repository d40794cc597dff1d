import { AdminError } from '../../errors/admin';
import type { SqlClient } from '../../storage/sql-client';
import type { AdminAlternativeAuth } from '../admin/admin-operation';
import type { CiOidcVerifier } from './ci-oidc';

/**
 * Admits a CI job's OIDC token on `POST /integrity/sign` (see `AdminOperation.alternativeAuth`). The job
 * acts for the vendor of the products its repository and ref are bound to, with the single scope
 * `sign:manifest`, and may sign only those products' manifests (`claims.product_ids`). Its audit name is
 * `oidc:<repository>`. A refused token is 401 `invalid_token` naming the reason; an unreachable key set
 * is 503 `service_unavailable` (retry later), never a 500.
 *
 * @param verifier - The configured token checker.
 * @param sql - The database (to find the vendor of the bound products).
 * @returns The alternative authentication.
 * @example
 * ```ts
 * import { CiOidcVerifier, ciOidcAuthentication, integrityOperations } from '@tollgate/core/license';
 * const operations = integrityOperations({ masterKey, signAuthentication: ciOidcAuthentication(new CiOidcVerifier(settings), sql) });
 * ```
 */
export function ciOidcAuthentication(verifier: CiOidcVerifier, sql: SqlClient): AdminAlternativeAuth {
  const challenge = { 'www-authenticate': 'Bearer error="invalid_token"' };
  return async (credential, request) => {
    const outcome = await verifier.verify(credential, request.now);
    if (outcome.kind === 'unavailable') throw new AdminError('service_unavailable', `${outcome.message} Retry shortly.`, { headers: { 'retry-after': '5' } });
    if (outcome.kind === 'refused') throw new AdminError('invalid_token', outcome.message, { headers: challenge });
    const { rows } = await sql.query<{ product_id: string; vendor_id: string }>('SELECT product_id, vendor_id FROM license_products WHERE product_id = ANY($1::text[]) ORDER BY product_id', [outcome.productIds]);
    // Bindings name products in configuration order; the first existing one decides the vendor.
    const first = outcome.productIds.map((id) => rows.find((row) => row.product_id === id)).find((row) => row !== undefined);
    if (first === undefined) throw new AdminError('invalid_token', 'The products this CI identity is bound to do not exist.', { headers: challenge });
    const productIds = rows.filter((row) => row.vendor_id === first.vendor_id).map((row) => row.product_id);
    return {
      tokenId: `oidc:${outcome.repository}`.slice(0, 128),
      vendorId: first.vendor_id,
      scopes: ['sign:manifest'],
      claims: { product_ids: productIds.join(','), repository: outcome.repository, ref: outcome.ref, subject: outcome.subject },
    };
  };
}
