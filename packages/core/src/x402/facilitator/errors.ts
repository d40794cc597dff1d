import { TollgateError } from '../../errors/base';

/** Which facilitator call failed. */
export type FacilitatorOperation = 'verify' | 'settle' | 'supported';

/** Why no answer came back: the deadline passed, the connection failed, or the facilitator said it cannot serve now (5xx, 408, 429). */
export type FacilitatorUnavailableReason = 'timeout' | 'network' | 'unavailable_status';

/**
 * The facilitator could not be asked: it timed out, was unreachable, or answered 5xx/408/429 without
 * a verdict. Retryable (`retryable: true`, code `facilitator_unavailable`, 503 with `retry-after`).
 * After a **settle**, no answer is ambiguous: the transfer may have been broadcast, so keep the claim
 * pending and finish from chain evidence (or retry the same payload: an EIP-3009 nonce executes at
 * most once, so a retry can never pay twice).
 *
 * @example
 * ```ts
 * import { FacilitatorUnavailableError } from '@tollgate/core/x402';
 * try { await facilitator.verify(payload, accepted); }
 * catch (e) { if (e instanceof FacilitatorUnavailableError) console.log(e.details.reason); } // 'timeout'
 * ```
 */
export class FacilitatorUnavailableError extends TollgateError {
  override readonly name = 'FacilitatorUnavailableError';
  declare readonly code: 'facilitator_unavailable';
  /** The same call may succeed later. */
  readonly retryable = true;
  /** Seconds before a retry (the facilitator's `retry-after` when it sent one). */
  readonly retryAfterSeconds: number;

  /**
   * @param operation - The call.
   * @param reason - Why there was no answer.
   * @param options - HTTP status when there was one, `retry-after` seconds, and the cause.
   */
  constructor(operation: FacilitatorOperation, reason: FacilitatorUnavailableReason, options: { status?: number; retryAfterSeconds?: number; cause?: unknown } = {}) {
    const why = reason === 'timeout' ? 'timed out' : reason === 'network' ? 'could not be reached' : `answered HTTP ${options.status ?? '?'}`;
    super('facilitator_unavailable', `The payment facilitator ${why} during ${operation}; retry later.`, {
      details: { operation, reason, ...(options.status === undefined ? {} : { status: options.status }) },
      cause: options.cause,
    });
    this.retryAfterSeconds = options.retryAfterSeconds ?? 5;
  }
}

/** How an answer broke the protocol. */
export type FacilitatorProtocolFailure = 'not_json' | 'invalid_shape' | 'too_large' | 'unexpected_status';

/**
 * The facilitator answered, but not in the x402 wire format: a body that is not JSON, does not match
 * the `VerifyResponse`/`SettleResponse`/`SupportedResponse` schema, exceeds the size cap, or a 4xx
 * without a verdict (e.g. 401 from wrong credentials). Not retryable as is (`retryable: false`): it
 * points at a misconfiguration or an incompatible facilitator. Code `facilitator_unavailable`, because
 * for the payer it is the same situation: the gateway cannot settle right now. After a settle it is as
 * ambiguous as {@link FacilitatorUnavailableError}.
 *
 * @example
 * ```ts
 * import { FacilitatorProtocolError } from '@tollgate/core/x402';
 * try { await facilitator.supported(); }
 * catch (e) { if (e instanceof FacilitatorProtocolError) console.log(e.details.failure); } // 'not_json'
 * ```
 */
export class FacilitatorProtocolError extends TollgateError {
  override readonly name = 'FacilitatorProtocolError';
  declare readonly code: 'facilitator_unavailable';
  readonly retryable = false;
  readonly retryAfterSeconds = 30;

  /**
   * @param operation - The call.
   * @param failure - How the answer broke the protocol.
   * @param options - HTTP status, the first offending field, and the cause.
   */
  constructor(operation: FacilitatorOperation, failure: FacilitatorProtocolFailure, options: { status?: number; field?: string; cause?: unknown } = {}) {
    super('facilitator_unavailable', `The payment facilitator sent an invalid ${operation} answer (${failure}).`, {
      details: {
        operation,
        failure,
        ...(options.status === undefined ? {} : { status: options.status }),
        ...(options.field === undefined ? {} : { field: options.field }),
      },
      cause: options.cause,
    });
  }
}
