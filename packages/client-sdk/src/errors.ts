import { TollgateError, type TollgateErrorOptions } from '@tollgate/core';

/**
 * A license server request that did not produce what the SDK expected.
 * `code` is the server's client-protocol code (1000…, 5000) when it sent a CBOR error body, otherwise
 * `network_error` (no response, or no whole answer within `requestTimeoutMs`) or `unexpected_response` (a
 * status or body the protocol does not define, such as a proxy's HTML page answered with 200).
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
 * - `incomplete`: the feed ended below a revocation epoch the server announced;
 * - `backdated`: a batch dated before the batch applied before it, or before a signed artifact that
 *   stated an earlier revocation epoch (the key of an expired epoch signing into its old window);
 * - `stale`: the artifact verifier refuses to verify because the feed was never synced, or not within
 *   its `maxRevocationAgeSeconds` (`cause` holds the last refresh failure).
 */
export type RevocationFeedErrorCode = 'gap' | 'replayed' | 'rollback' | 'incomplete' | 'backdated' | 'stale';

/**
 * A refused step of the revocation feed. Treat `rollback` and `backdated` as attack signals; `stale`
 * means "go online": the app cannot tell whether an epoch was revoked meanwhile.
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

/**
 * Why a correctly signed answer was still refused as the answer to *this* request:
 * - `nonce_mismatch`: its `nonce_echo` is not the nonce this request sent (a captured ticket or kill
 *   order replayed into this session, or a server answering another request);
 * - `device_mismatch`: a machine credential names another device key or fingerprint than this device's;
 * - `seat_mismatch`: a ticket or kill order names another license or machine than the request.
 */
export type ResponseMismatchCode = 'nonce_mismatch' | 'device_mismatch' | 'seat_mismatch';

/**
 * A signed answer that verifies against the pinned roots and the revocation feed, but is bound to
 * another request, device or seat. Treat it like a signature failure: fail **closed**, never use the
 * answer (the SDK never returns it).
 *
 * @example
 * ```ts
 * import { ResponseMismatchError, validate } from '@tollgate/client-sdk';
 * try { await validate(options, input); } catch (e) { if (e instanceof ResponseMismatchError) reportTampering(e.code); }
 * ```
 */
export class ResponseMismatchError extends TollgateError {
  override readonly name = 'ResponseMismatchError';
  declare readonly code: ResponseMismatchCode;

  constructor(code: ResponseMismatchCode, message: string, options?: TollgateErrorOptions) {
    super(code, message, options);
  }
}
