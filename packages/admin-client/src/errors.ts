/**
 * The errors the Admin client throws. Every one extends {@link AdminClientError} and carries a `code`:
 * the server's error code for {@link AdminApiError}, a client-side code for the others. A caller's own
 * `AbortSignal` is not wrapped: an aborted call rejects with `signal.reason`, as `fetch` does.
 *
 * @module
 */

/**
 * Base class of every error the Admin client throws.
 *
 * @example
 * ```ts
 * import { AdminClientError } from '@tollgate/admin-client';
 * try { await admin.licenses.get(id); } catch (error) { if (error instanceof AdminClientError) console.error(error.code); }
 * ```
 */
export class AdminClientError extends Error {
  override readonly name: string = 'AdminClientError';
  /** A stable, machine-readable code. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * The server answered with an error: `code` is the Admin API's error code (`not_found`, `already_revoked`,
 * …) from the `{ ok: false, error: { code, message } }` envelope, or `http_<status>` when the answer
 * had no such envelope (a proxy's HTML page, say).
 *
 * @example
 * ```ts
 * import { AdminApiError } from '@tollgate/admin-client';
 * try { await admin.licenses.revoke(id, {}, { dryRun: false }); }
 * catch (error) { if (error instanceof AdminApiError && error.code === 'already_revoked') console.log('nothing to do'); }
 * ```
 */
export class AdminApiError extends AdminClientError {
  override readonly name = 'AdminApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The server's `X-Request-Id`, to quote when asking the operator. */
  readonly requestId: string | undefined;
  /** Seconds the server asked to wait (`Retry-After`), when it said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: string, status: number, message: string, requestId: string | undefined, retryAfterSeconds?: number) {
    super(code, message);
    this.status = status;
    this.requestId = requestId;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * No answer: the connection failed or dropped (after the client's own retries). `cause` holds the
 * platform's error.
 *
 * @example
 * ```ts
 * import { AdminNetworkError } from '@tollgate/admin-client';
 * if (error instanceof AdminNetworkError) console.error('license server unreachable', error.cause);
 * ```
 */
export class AdminNetworkError extends AdminClientError {
  override readonly name = 'AdminNetworkError';

  constructor(message: string, options?: { cause?: unknown }) {
    super('network_error', message, options);
  }
}

/**
 * An attempt took longer than `timeoutMs` (after the client's own retries).
 *
 * @example
 * ```ts
 * import { AdminTimeoutError } from '@tollgate/admin-client';
 * if (error instanceof AdminTimeoutError) console.error(`no answer within ${error.timeoutMs} ms`);
 * ```
 */
export class AdminTimeoutError extends AdminClientError {
  override readonly name = 'AdminTimeoutError';
  /** The per-attempt limit that was exceeded. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super('timeout', `The license server did not answer within ${timeoutMs} ms.`);
    this.timeoutMs = timeoutMs;
  }
}

/** Codes of {@link AdminResponseError}. */
export type AdminResponseErrorCode = 'response_too_large' | 'invalid_response';

/**
 * The server answered, but the client refused the answer: `response_too_large` (declared or streamed
 * past `maxResponseBytes`; the body was not buffered) or `invalid_response` (not JSON, or not the shape
 * the call expects; the message names the offending path). Never retried.
 *
 * @example
 * ```ts
 * import { AdminResponseError } from '@tollgate/admin-client';
 * if (error instanceof AdminResponseError && error.code === 'response_too_large') console.error('raise maxResponseBytes?');
 * ```
 */
export class AdminResponseError extends AdminClientError {
  override readonly name = 'AdminResponseError';
  declare readonly code: AdminResponseErrorCode;
  /** The HTTP status of the refused answer. */
  readonly status: number;
  readonly requestId: string | undefined;

  constructor(code: AdminResponseErrorCode, message: string, status: number, requestId: string | undefined) {
    super(code, message);
    this.status = status;
    this.requestId = requestId;
  }
}
