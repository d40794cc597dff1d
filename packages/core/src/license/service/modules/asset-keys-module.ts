import { assetKeyOperations } from '../../asset-keys/asset-key-operations';
import type { LicenseModule, LicenseModuleContext } from './license-module';

/**
 * The asset-keys feature of the license server: `GET`/`POST /v1/admin/asset-keks` and `DELETE
 * /v1/admin/asset-keks/{release}/{feature}` (scope `releases:rw`). The keys reach devices through the
 * client protocol (machine credentials and validation tickets, key 15), which reads them through its own
 * cached source over the same database and master key; this module's changes invalidate that cache on
 * the release-change channel.
 *
 * @param context - Database, audit, trust, clock, master key, logger, config.
 * @returns The module's Admin operations.
 * @example
 * ```ts
 * const module = assetKeysModule(context);
 * ```
 */
export function assetKeysModule(context: LicenseModuleContext): LicenseModule {
  return { adminOperations: assetKeyOperations({ sql: context.sql, masterKey: context.masterKey }) };
}
