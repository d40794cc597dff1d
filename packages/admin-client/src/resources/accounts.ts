import type { AdminTransport } from '../transport-types';

/** The `accounts` group (STUB: being written). */
export type AccountsResource = Record<string, never>;

/** Builds the `accounts` group on a transport. */
export function createAccountsResource(transport: AdminTransport): AccountsResource {
  void transport;
  return {};
}
