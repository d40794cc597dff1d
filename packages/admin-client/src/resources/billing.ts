import type { AdminTransport } from '../transport-types';

/** The `billing` group (STUB: being written). */
export type BillingResource = Record<string, never>;

/** Builds the `billing` group on a transport. */
export function createBillingResource(transport: AdminTransport): BillingResource {
  void transport;
  return {};
}
