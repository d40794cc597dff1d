import type { AdminTransport } from '../transport-types';

/** The `catalog` group (STUB: being written). */
export type CatalogResource = Record<string, never>;

/** Builds the `catalog` group on a transport. */
export function createCatalogResource(transport: AdminTransport): CatalogResource {
  void transport;
  return {};
}
