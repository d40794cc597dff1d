import { TollgateError, type TollgateErrorOptions } from './base';

/**
 * Admin API and webhook codes with their HTTP status. The spec's codes come first; the transport codes
 * after them are additions recorded in docs/decisions.md.
 */
export const adminErrorCodes = {
  invalid_token: 401,
  insufficient_scope: 403,
  not_found: 404,
  idempotency_conflict: 409,
  already_revoked: 409,
  revocation_in_progress: 409,
  confirmation_mismatch: 409,
  replacement_epoch_required: 409,
  second_actor_required: 409,
  license_not_active: 409,
  olk_not_allowed: 422,
  invalid_entitlement: 422,
  signer_key_not_registered: 403,
  invalid_signature: 401,
  internal_error: 500,
  // Additions (docs/decisions.md).
  invalid_request: 400,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  service_unavailable: 503,
  account_exists: 409,
  catalog_item_exists: 409,
  policy_exists: 409,
  dsr_bound_exceeded: 422,
  asset_kek_exists: 409,
} as const satisfies Record<string, number>;

/**
 * Refusals that describe a passing moment, not the request: another transaction holds the target. The
 * idempotency journal never stores them, so a retry with the same key runs again instead of replaying
 * the refusal for 24 hours.
 */
export const transientAdminErrorCodes: ReadonlySet<string> = new Set(['revocation_in_progress']);

/** An Admin API or webhook error code. */
export type AdminErrorCode = keyof typeof adminErrorCodes;

/**
 * An error of the Admin API or the billing webhooks, rendered as `{ ok: false, error: { code, message } }`.
 *
 * @example
 * ```ts
 * import { AdminError } from '@tollgate/core';
 * throw new AdminError('already_revoked', 'License 7f… is already revoked.');
 * ```
 */
export class AdminError extends TollgateError {
  override readonly name = 'AdminError';
  declare readonly code: AdminErrorCode;
  /** HTTP status from {@link adminErrorCodes}. */
  readonly status: number;
  /** Extra response headers, such as `WWW-Authenticate` on `invalid_token`. */
  readonly headers: Record<string, string>;

  constructor(code: AdminErrorCode, message: string, options: TollgateErrorOptions & { headers?: Record<string, string> } = {}) {
    super(code, message, options);
    this.status = adminErrorCodes[code];
    this.headers = options.headers ?? {};
  }
}
