import { hexDecode } from '../../crypto/hex';
import type { RandomSource } from '../../crypto/random';
import type { SqlClient } from '../../storage/sql-client';
import type { AssetKeySource } from './asset-key-source';
import type { WrappedAssetKeys } from './asset-key-wire';
import { wrapAssetKeys, type AssetKeyWrapContext } from './asset-key-wrap';

/**
 * The asset-key block of one credential or ticket: the keys of `features` on `releaseId`, wrapped to the
 * device's KEM key and bound to the artifact. `undefined` (no block at all) when the build has no
 * registered release, the device sent no usable KEM key, or the release has no key for any of the
 * features, which is the case for every product that does not use asset keys: that path reads nothing
 * once the release is cached, and never asks for the device's KEM key.
 *
 * @param source - The cached key source.
 * @param sql - The database or the artifact's transaction.
 * @param input - Release (hex or null), entitled features, the device KEM key (or a reader of it, called
 *   only when there is something to wrap), the artifact context, randomness.
 * @returns The block, or `undefined`.
 * @example
 * ```ts
 * import { grantAssetKeys } from '@tollgate/core/license';
 * const assetKeys = await grantAssetKeys(context.assetKeys, tx, { releaseId, features, deviceKemKey: () => request.deviceKemKey, context: wrapContext });
 * ```
 */
export async function grantAssetKeys(
  source: AssetKeySource,
  sql: SqlClient,
  input: {
    releaseId: string | null;
    features: readonly string[];
    deviceKemKey: () => Promise<Uint8Array | null | undefined> | Uint8Array | null | undefined;
    context: AssetKeyWrapContext;
    random?: RandomSource;
  },
): Promise<WrappedAssetKeys | undefined> {
  if (input.releaseId === null || input.features.length === 0) return undefined;
  const keys = await source.keysFor(sql, input.releaseId, input.features);
  if (keys.size === 0) return undefined;
  const deviceKemKey = await input.deviceKemKey();
  if (deviceKemKey === null || deviceKemKey === undefined) return undefined;
  try {
    return wrapAssetKeys({ deviceKemKey, context: input.context, releaseId: hexDecode(input.releaseId), keys }, input.random);
  } catch {
    // A KEM key that is no X25519 point (all zeros, a low-order point) can receive nothing: the artifact
    // goes out without keys rather than failing the device's activation or validation.
    return undefined;
  }
}
