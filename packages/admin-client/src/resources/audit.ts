import type { AdminTransport } from '../transport-types';

/** The `audit` group (STUB: being written). */
export type AuditResource = Record<string, never>;

/** Builds the `audit` group on a transport. */
export function createAuditResource(transport: AdminTransport): AuditResource {
  void transport;
  return {};
}
