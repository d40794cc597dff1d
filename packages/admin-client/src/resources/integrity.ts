import type { AdminTransport } from '../transport-types';

/** The `integrity` group (STUB: being written). */
export type IntegrityResource = Record<string, never>;

/** Builds the `integrity` group on a transport. */
export function createIntegrityResource(transport: AdminTransport): IntegrityResource {
  void transport;
  return {};
}
