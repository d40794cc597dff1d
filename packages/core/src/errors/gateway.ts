import { TollgateError, type TollgateErrorOptions } from './base';

/**
 * How a client should react to a gateway error: fix the input, accept the refusal, retry later, or
 * reconcile an ambiguous post-settlement state (ask again with the same payment, or recover it).
 */
export type GatewayErrorGroup = 'invalid_input' | 'refusal' | 'temporary' | 'ambiguous';

/**
 * The gateway's string codes with their HTTP status and group. The spec's stable codes come first;
 * the rest are additions recorded in docs/decisions.md. Codes never change meaning once published.
 */
export const gatewayErrorCodes = {
  invalid_request: { status: 400, group: 'invalid_input' },
  unauthorized: { status: 401, group: 'refusal' },
  forbidden: { status: 403, group: 'refusal' },
  not_found: { status: 404, group: 'refusal' },
  ref_expired: { status: 410, group: 'refusal' },
  ref_revoked: { status: 410, group: 'refusal' },
  payto_revoked: { status: 410, group: 'refusal' },
  payment_required: { status: 402, group: 'refusal' },
  payment_verification_failed: { status: 402, group: 'refusal' },
  settlement_failed: { status: 402, group: 'refusal' },
  receipt_invalid: { status: 422, group: 'refusal' },
  rpc_unavailable: { status: 503, group: 'temporary' },
  rate_limited: { status: 429, group: 'temporary' },
  // Additions (docs/decisions.md).
  method_not_allowed: { status: 405, group: 'invalid_input' },
  request_timeout: { status: 408, group: 'temporary' },
  payload_too_large: { status: 413, group: 'invalid_input' },
  unsupported_media_type: { status: 415, group: 'invalid_input' },
  conflict: { status: 409, group: 'refusal' },
  facilitator_unavailable: { status: 503, group: 'temporary' },
  settlement_pending: { status: 202, group: 'ambiguous' },
  internal_error: { status: 500, group: 'temporary' },
} as const satisfies Record<string, { status: number; group: GatewayErrorGroup }>;

/** A gateway error code. */
export type GatewayErrorCode = keyof typeof gatewayErrorCodes;

/**
 * An error of the payment gateway, rendered as `{ x402Version: 2, error: { code, message, details } }`.
 *
 * @example
 * ```ts
 * import { GatewayError } from '@tollgate/core';
 * throw new GatewayError('ref_expired', 'This ref expired at 2026-01-01T00:00:00Z.', { details: { expiresAt: 1767225600 } });
 * ```
 */
export class GatewayError extends TollgateError {
  override readonly name = 'GatewayError';
  declare readonly code: GatewayErrorCode;
  /** Seconds the client should wait before retrying, when the refusal is temporary. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: GatewayErrorCode, message: string, options: TollgateErrorOptions & { retryAfterSeconds?: number } = {}) {
    super(code, message, options);
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** True when `code` is a registered gateway code. */
export function isGatewayErrorCode(code: unknown): code is GatewayErrorCode {
  return typeof code === 'string' && Object.hasOwn(gatewayErrorCodes, code);
}
