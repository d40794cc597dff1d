import type { AdminTransport } from '../transport-types';

/** The `telemetry` group (STUB: being written). */
export type TelemetryResource = Record<string, never>;

/** Builds the `telemetry` group on a transport. */
export function createTelemetryResource(transport: AdminTransport): TelemetryResource {
  void transport;
  return {};
}
