import { CiOidcVerifier } from '../../integrity/ci-oidc';
import { ciOidcAuthentication } from '../../integrity/ci-oidc-authentication';
import { integrityOperations } from '../../integrity/integrity-operations';
import type { LicenseModule, LicenseModuleContext } from './license-module';

/**
 * Integrity signing: `GET/POST /v1/admin/integrity/keys`, `POST /v1/admin/integrity/keys/{fingerprint}/revoke`
 * and `POST /v1/admin/integrity/sign` (scope `sign:manifest`). The server generates and holds each
 * product's Ed25519 signer keys (sealed under a subkey of the master key); builds embed the public half.
 * With `INTEGRITY_OIDC_*` configured, `POST /integrity/sign` also admits RS256 OIDC tokens of the CI
 * provider, acting for the products their repository and ref are bound to.
 *
 * @param context - Database, master key, options (`options.integrity`).
 * @returns The module's Admin operations.
 *
 * @example
 * ```ts
 * import { integrityModule } from './modules/integrity-module';
 * const { adminOperations } = integrityModule(context);
 * ```
 */
export function integrityModule(context: LicenseModuleContext): LicenseModule {
  const { sql, masterKey, options } = context;
  const oidc = options.integrity.oidc;
  return {
    adminOperations: integrityOperations({
      masterKey,
      ...(oidc === undefined ? {} : { signAuthentication: ciOidcAuthentication(new CiOidcVerifier(oidc), sql) }),
    }),
  };
}
