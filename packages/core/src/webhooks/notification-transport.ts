import { TollgateError } from '../errors/base';

/** One notification POST as the deliverer hands it to a transport. */
export interface NotificationRequest {
  /** Every header to send, lowercase-named (content type, user agent, signatures, idempotency key). */
  readonly headers: Readonly<Record<string, string>>;
  /** The exact body bytes the signatures cover. Send them unchanged. */
  readonly body: string;
  /** Deadline of the whole exchange (connect, send, response), in milliseconds. */
  readonly timeoutMs: number;
  /** Aborts the request (the worker is stopping). */
  readonly signal?: AbortSignal;
}

/** What the receiver answered. */
export interface NotificationResponse {
  /** The HTTP status of the receiver's answer (a redirect is an answer: it is never followed). */
  readonly status: number;
}

/**
 * Why a transport could not get an answer from the receiver.
 * - `unsafe_url`: the URL breaks the destination rules (`checkNotificationUrl`).
 * - `non_public_address`: the host is, or resolves to, a non-public address (even one of several).
 * - `dns_failure`: the name did not resolve (or resolved to nothing) in time.
 * - `connect_timeout`: no connection (TCP and TLS) within the connect deadline.
 * - `timeout`: no answer within the request deadline.
 * - `connection_failed`: refused, reset, unreachable, or a TLS failure (certificate, handshake).
 * - `aborted`: the caller aborted (shutdown).
 */
export type NotificationTransportFailure =
  | 'unsafe_url'
  | 'non_public_address'
  | 'dns_failure'
  | 'connect_timeout'
  | 'timeout'
  | 'connection_failed'
  | 'aborted';

const finalFailures: ReadonlySet<NotificationTransportFailure> = new Set(['unsafe_url', 'non_public_address']);

/**
 * A notification that did not reach the receiver. `retryable` is false only for destinations that are
 * refused by rule (`unsafe_url`, `non_public_address`): asking again would be refused again, and every
 * retry would be one more probe of the address. The message names the host, never the full URL (query
 * strings often carry the receiver's own tokens).
 *
 * @example
 * ```ts
 * import { NotificationTransportError } from '@tollgate/core';
 * try { await transport.post(url, request); } catch (e) { if (e instanceof NotificationTransportError && !e.retryable) console.log(e.reason); }
 * ```
 */
export class NotificationTransportError extends TollgateError {
  override readonly name = 'NotificationTransportError';
  declare readonly code: NotificationTransportFailure;
  /** Why (also the error's `code`). */
  readonly reason: NotificationTransportFailure;
  /** Whether a later attempt may succeed. */
  readonly retryable: boolean;

  /**
   * @param reason - Why.
   * @param message - A human explanation (host only, never the URL's path or query).
   * @param options - Extra caller-safe details and the low-level cause.
   */
  constructor(reason: NotificationTransportFailure, message: string, options: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(reason, message, { details: { reason, ...options.details }, cause: options.cause });
    this.reason = reason;
    this.retryable = !finalFailures.has(reason);
  }
}

/**
 * Port: sends one signed notification and reports the receiver's status.
 *
 * Contract:
 * - **Destination safety.** Refuses, before connecting, any URL that `checkNotificationUrl` refuses and
 *   any host that is or resolves to a non-public address (if *any* resolved address is non-public);
 *   then connects only to an address it verified (no second resolution can rebind the connection).
 *   Throws {@link NotificationTransportError} `unsafe_url` / `non_public_address`.
 * - **No redirects.** A 3xx is returned as the status; its `Location` is never requested.
 * - **Bounded.** Honours `timeoutMs` for the whole exchange, reads a bounded number of response bytes,
 *   and aborts on `signal`.
 * - **Bytes as given.** Sends `body` and `headers` unchanged (adding only transport headers such as
 *   `host` and `content-length`).
 * - Resolves with the status of any HTTP answer (2xx or not); rejects with
 *   {@link NotificationTransportError} when there is none.
 *
 * Implementation: `createNodeNotificationTransport` from `@tollgate/core/node`.
 */
export interface NotificationTransport {
  post(url: URL, request: NotificationRequest): Promise<NotificationResponse>;
}
