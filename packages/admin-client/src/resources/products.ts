import type { AdminTransport } from '../transport-types';

/** The `products` group (STUB: being written). */
export type ProductsResource = Record<string, never>;

/** Builds the `products` group on a transport. */
export function createProductsResource(transport: AdminTransport): ProductsResource {
  void transport;
  return {};
}
