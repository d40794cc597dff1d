import type { AdminTransport } from '../transport-types';

/** The `licenses` group (STUB: being written). */
export type LicensesResource = Record<string, never>;

/** Builds the `licenses` group on a transport. */
export function createLicensesResource(transport: AdminTransport): LicensesResource {
  void transport;
  return {};
}
