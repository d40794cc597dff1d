import type { AdminTransport } from '../transport-types';

/** The `assetKeks` group (STUB: being written). */
export type AssetKeksResource = Record<string, never>;

/** Builds the `assetKeks` group on a transport. */
export function createAssetKeksResource(transport: AdminTransport): AssetKeksResource {
  void transport;
  return {};
}
