import type { AdminTransport } from '../transport-types';

/** The `dsr` group (STUB: being written). */
export type DsrResource = Record<string, never>;

/** Builds the `dsr` group on a transport. */
export function createDsrResource(transport: AdminTransport): DsrResource {
  void transport;
  return {};
}
