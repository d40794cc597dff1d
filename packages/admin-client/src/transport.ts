import type { AdminTransport } from './transport-types';

/** Options of `createAdminClient` (STUB: being written by the transport owner). */
export interface AdminClientOptions {
  /** The license server's base URL (the client appends `/v1/admin/...`). */
  readonly baseUrl: string;
  /** An Admin token (`Authorization: Bearer`). */
  readonly token: string;
  readonly fetch?: typeof fetch;
  /** Largest answer read, in bytes (default 16 MiB); beyond it the call fails with `response_too_large`. */
  readonly maxResponseBytes?: number;
  /** Per-attempt timeout (default 30 s). */
  readonly timeoutMs?: number;
  /** Retries after the first attempt on network errors, 429 and 503 (default 2). */
  readonly maxRetries?: number;
}

/** Builds the transport every resource group uses (STUB). */
export function createTransport(options: AdminClientOptions): AdminTransport {
  void options;
  throw new Error('not yet built');
}
