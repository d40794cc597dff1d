import { TollgateError, type TollgateErrorOptions } from './base';

/**
 * Integer codes of the license client protocol with their name and default HTTP status. Code 1000 is
 * deliberately generic (malformed or unauthorized) and is sent with 400, 401, 403, 405, 413 or 415.
 */
export const licenseClientErrorCodes = {
  1000: { name: 'invalid_credential', status: 400 },
  1001: { name: 'seat_exhausted', status: 409 },
  1003: { name: 'needs_login', status: 401 },
  1004: { name: 'unsupported_proto', status: 426 },
  1005: { name: 'rate_limited', status: 429 },
  1007: { name: 'release_not_registered', status: 403 },
  1008: { name: 'version_out_of_scope', status: 409 },
  1009: { name: 'release_compromised', status: 403 },
  5000: { name: 'server_error', status: 500 },
} as const;

/** An integer code of the license client protocol. */
export type LicenseClientErrorCode = keyof typeof licenseClientErrorCodes;

/**
 * Statuses each code may be sent with: the spec's client error table, plus 409 for 1000 (an
 * Idempotency-Key reused with another request; docs/protocol.md §1).
 */
const allowedStatuses: Record<LicenseClientErrorCode, readonly number[]> = {
  1000: [400, 401, 403, 405, 409, 413, 415],
  1001: [409],
  1003: [401],
  1004: [426],
  1005: [429],
  1007: [403],
  1008: [409],
  1009: [403],
  5000: [500, 503],
};

/**
 * An error of the license client protocol, rendered as the CBOR map `{0: code, 1?: message, 2?: retry_after}`.
 *
 * @example
 * ```ts
 * import { LicenseClientError } from '@tollgate/core';
 * throw new LicenseClientError(1004, 'X-LS-Proto must be 1');
 * throw new LicenseClientError(5000, 'keyset cache is cold', { status: 503, retryAfterSeconds: 1 });
 * ```
 */
export class LicenseClientError extends TollgateError {
  override readonly name = 'LicenseClientError';
  declare readonly code: LicenseClientErrorCode;
  /** HTTP status; one of those the spec allows for this code. */
  readonly status: number;
  /** Seconds before a retry makes sense (rendered as key 2 and the Retry-After header). */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: LicenseClientErrorCode,
    message: string,
    options: TollgateErrorOptions & { status?: number; retryAfterSeconds?: number } = {},
  ) {
    super(code, message, options);
    const status = options.status ?? licenseClientErrorCodes[code].status;
    if (!allowedStatuses[code].includes(status)) {
      throw new RangeError(`license client code ${code} cannot be sent with HTTP ${status}`);
    }
    this.status = status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
