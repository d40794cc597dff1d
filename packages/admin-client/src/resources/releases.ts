import type { AdminTransport } from '../transport-types';

/** The `releases` group (STUB: being written). */
export type ReleasesResource = Record<string, never>;

/** Builds the `releases` group on a transport. */
export function createReleasesResource(transport: AdminTransport): ReleasesResource {
  void transport;
  return {};
}
