import { TollgateError } from '../errors/base';

/**
 * The step at which a `PAYMENT-*` header failed to decode, in pipeline order: `missing` (no value),
 * `too_large` (over the size cap, checked before any work), `invalid_base64`, `invalid_utf8`,
 * `invalid_json`, `too_deep` (arrays and objects nested deeper than the decoders accept),
 * `unsupported_version` (`x402Version` is not 2) and `invalid_shape` (the x402 v2 schema refused it).
 */
export type X402HeaderFailure = 'missing' | 'too_large' | 'invalid_base64' | 'invalid_utf8' | 'invalid_json' | 'too_deep' | 'unsupported_version' | 'invalid_shape';

/** Transport-level failures: the header is not even a readable JSON document. */
const transportFailures: ReadonlySet<X402HeaderFailure> = new Set(['missing', 'too_large', 'invalid_base64', 'invalid_utf8', 'invalid_json', 'too_deep']);

/**
 * A `PAYMENT-SIGNATURE`, `PAYMENT-REQUIRED` or `PAYMENT-RESPONSE` header that could not be decoded.
 * `details.reason` names the failed step ({@link X402HeaderFailure}), `details.header` the header, and
 * for `invalid_shape` `details.field` the first offending path. The code follows the step: unreadable
 * input (`missing` … `too_deep`) is `invalid_request` (400); a readable document that is not an x402
 * v2 payment (`unsupported_version`, `invalid_shape`) is `payment_verification_failed` (402), so a route
 * can render it with `renderGatewayError` as is. Details never echo the header value (it is replayable
 * payment material).
 *
 * @example
 * ```ts
 * import { X402HeaderError } from '@tollgate/core';
 * import { decodePaymentSignatureHeader } from '@tollgate/core/x402';
 * try { decodePaymentSignatureHeader('%%%'); }
 * catch (e) { if (e instanceof X402HeaderError) console.log(e.code, e.details.reason); } // invalid_request invalid_base64
 * ```
 */
export class X402HeaderError extends TollgateError {
  override readonly name = 'X402HeaderError';
  declare readonly code: 'invalid_request' | 'payment_verification_failed';
  /** The failed step. */
  readonly reason: X402HeaderFailure;

  /**
   * @param header - The header's name, e.g. `PAYMENT-SIGNATURE`.
   * @param reason - The failed step.
   * @param message - A human explanation that never quotes the header value.
   * @param extra - Further caller-safe details (`field`, `maxBytes`, …) and the cause.
   */
  constructor(header: string, reason: X402HeaderFailure, message: string, extra: { details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(transportFailures.has(reason) ? 'invalid_request' : 'payment_verification_failed', message, {
      details: { header, reason, ...extra.details },
      cause: extra.cause,
    });
    this.reason = reason;
  }
}

/**
 * A payment, signed offer or payment identifier that does not verify. `field` names what failed, as a
 * path into the payment payload (`accepted`, `authorization.to`, `signature`, `offer.amount`,
 * `extensions.payment-identifier`, …) and `reason` says how (`mismatch`, `expired`, `malformed`, …);
 * both are also in `details`, so clients see them in the error envelope. The code is
 * `payment_verification_failed` (402), or `invalid_request` (400) for a malformed or missing payment
 * identifier, as the payment-identifier extension prescribes.
 *
 * @example
 * ```ts
 * import { verifyExactPayment, PaymentVerificationError } from '@tollgate/core/x402';
 * try { await verifyExactPayment(params); }
 * catch (e) { if (e instanceof PaymentVerificationError) console.log(e.field, e.reason); } // authorization.value mismatch
 * ```
 */
export class PaymentVerificationError extends TollgateError {
  override readonly name = 'PaymentVerificationError';
  declare readonly code: 'payment_verification_failed' | 'invalid_request';
  /** Path of the field that failed. */
  readonly field: string;
  /** How it failed. */
  readonly reason: string;

  /**
   * @param field - Path of the field that failed.
   * @param reason - How it failed, a short snake_case word.
   * @param message - A human explanation.
   * @param options - Extra caller-safe details and the code (default `payment_verification_failed`).
   */
  constructor(
    field: string,
    reason: string,
    message: string,
    options: { details?: Record<string, unknown>; code?: 'payment_verification_failed' | 'invalid_request'; cause?: unknown } = {},
  ) {
    super(options.code ?? 'payment_verification_failed', message, { details: { field, reason, ...options.details }, cause: options.cause });
    this.field = field;
    this.reason = reason;
  }
}
