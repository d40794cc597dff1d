import type { AdminTransport } from '../transport-types';

/** The `analytics` group (STUB: being written). */
export type AnalyticsResource = Record<string, never>;

/** Builds the `analytics` group on a transport. */
export function createAnalyticsResource(transport: AdminTransport): AnalyticsResource {
  void transport;
  return {};
}
