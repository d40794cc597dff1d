import type { AdminTransport } from '../transport-types';

/** The `policies` group (STUB: being written). */
export type PoliciesResource = Record<string, never>;

/** Builds the `policies` group on a transport. */
export function createPoliciesResource(transport: AdminTransport): PoliciesResource {
  void transport;
  return {};
}
