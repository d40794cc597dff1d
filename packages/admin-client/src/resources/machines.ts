import type { AdminTransport } from '../transport-types';

/** The `machines` group (STUB: being written). */
export type MachinesResource = Record<string, never>;

/** Builds the `machines` group on a transport. */
export function createMachinesResource(transport: AdminTransport): MachinesResource {
  void transport;
  return {};
}
