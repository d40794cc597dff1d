import { epochOperations } from '../../epochs-admin/epoch-operations';
import type { LicenseModule, LicenseModuleContext } from './license-module';

/**
 * Epoch administration: `GET/POST /v1/admin/epochs`, `GET /v1/admin/epochs/{id}` and the two-actor
 * `POST /v1/admin/epochs/{id}/revoke` (scope `epochs:rw`, revoke also `revoke`). Committed changes of the
 * trust chain reach this instance's trust state as change notices (a revoked epoch's signer retires at
 * once, the keyset is republished); other instances hear the database's own notices
 * (`trust-change-listener.ts`), or their periodic refresh.
 *
 * @param context - Database, trust state, pins, options (`options.epochs`).
 * @returns The module's Admin operations.
 *
 * @example
 * ```ts
 * import { epochsModule } from './modules/epochs-module';
 * const { adminOperations } = epochsModule(context);
 * ```
 */
export function epochsModule(context: LicenseModuleContext): LicenseModule {
  const { sql, trust, pinnedRoots, options } = context;
  return {
    adminOperations: epochOperations({
      sql,
      pinnedRoots,
      signingEpochs: () => trust.signingEpochs(),
      approvalWindowSeconds: options.epochs.revokeApprovalSeconds,
      globalEpochVendors: options.epochs.globalEpochVendors,
      afterTrustChange: (notice) => trust.applyChangeNotice(notice),
      verify: context.crypto.verify,
    }),
  };
}
