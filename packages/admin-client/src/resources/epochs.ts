import type { AdminTransport } from '../transport-types';

/** The `epochs` group (STUB: being written). */
export type EpochsResource = Record<string, never>;

/** Builds the `epochs` group on a transport. */
export function createEpochsResource(transport: AdminTransport): EpochsResource {
  void transport;
  return {};
}
