import { TollgateError, type TollgateErrorOptions } from './base';

/**
 * Transport-level refusals raised by the HTTP plumbing before a handler runs (bad body, unknown route).
 * Each envelope renderer translates them into its own code registry.
 */
export const requestErrorStatus = {
  malformed_body: 400,
  malformed_request: 400,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
} as const;

/** A transport-level refusal code. */
export type RequestErrorCode = keyof typeof requestErrorStatus;

/**
 * A request the plumbing refuses before any handler sees it: wrong content type, a body over its limit,
 * a decompression bomb, malformed JSON or CBOR, an unknown path or method.
 */
export class RequestError extends TollgateError {
  override readonly name = 'RequestError';
  declare readonly code: RequestErrorCode;
  /** HTTP status the refusal maps to in every envelope. */
  readonly status: number;

  constructor(code: RequestErrorCode, message: string, options?: TollgateErrorOptions) {
    super(code, message, options);
    this.status = requestErrorStatus[code];
  }
}
