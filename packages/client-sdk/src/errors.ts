import { TollgateError, type TollgateErrorOptions } from '@tollgate/core';

/**
 * A license server request that did not produce what the SDK expected.
 * `code` is the server's client-protocol code (1000…, 5000) when it sent a CBOR error body, otherwise
 * `network_error` (no response) or `unexpected_response` (a status or body the protocol does not define).
 * `retryAfterSeconds` comes from `Retry-After` or body key 2. Apps fail open on 5xx and network errors
 * (grace), closed on credential and crypto failures.
 *
 * @example
 * ```ts
 * import { LicenseRequestError } from '@tollgate/client-sdk';
 * try { await fetcher.get(); } catch (e) { if (e instanceof LicenseRequestError && e.code === 5000) await wait(e.retryAfterSeconds ?? 1); }
 * ```
 */
export class LicenseRequestError extends TollgateError {
  override readonly name = 'LicenseRequestError';
  declare readonly code: number | 'network_error' | 'unexpected_response';
  /** HTTP status, when a response arrived. */
  readonly status: number | undefined;
  /** Seconds to wait before retrying, when the server said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: LicenseRequestError['code'],
    message: string,
    options: TollgateErrorOptions & { status?: number; retryAfterSeconds?: number } = {},
  ) {
    super(code, message, options);
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/**
 * Why the revocation follower refused a batch or an announcement:
 * - `gap`: a batch skips sequence numbers (the feed must be applied in order);
 * - `replayed`: a batch at or below the revocation epoch already applied;
 * - `rollback`: a server, keyset or ticket announces a revocation epoch lower than one already seen;
 * - `incomplete`: the feed ended below a revocation epoch the server announced.
 */
export type RevocationFeedErrorCode = 'gap' | 'replayed' | 'rollback' | 'incomplete';

/**
 * A refused step of the revocation feed. Treat `rollback` as an attack signal.
 *
 * @example
 * ```ts
 * import { RevocationFeedError } from '@tollgate/client-sdk';
 * try { follower.observe(ticket.revocationEpoch); } catch (e) { if (e instanceof RevocationFeedError) lockDown(); }
 * ```
 */
export class RevocationFeedError extends TollgateError {
  override readonly name = 'RevocationFeedError';
  declare readonly code: RevocationFeedErrorCode;

  constructor(code: RevocationFeedErrorCode, message: string, options?: TollgateErrorOptions) {
    super(code, message, options);
  }
}
