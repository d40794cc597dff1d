import { encodeCanonical } from '../cbor';
import { AdminError, type AdminErrorCode } from './admin';
import { isTollgateError } from './base';
import { GatewayError, gatewayErrorCodes, isGatewayErrorCode, type GatewayErrorCode } from './gateway';
import { LicenseClientError } from './license-client';
import { RequestError, type RequestErrorCode } from './request';

/** An error turned into a plain HTTP response (structurally an http `HttpResponse`). */
export interface RenderedError<Body> {
  status: number;
  headers: Record<string, string>;
  body: Body;
}

/** Body of every gateway error: `{ x402Version: 2, error: { code, message, details } }`. */
export interface GatewayErrorBody {
  x402Version: 2;
  error: { code: GatewayErrorCode; message: string; details: Record<string, unknown> };
}

/** Body of every Admin API and webhook error: `{ ok: false, error: { code, message } }`. */
export interface AdminErrorBody {
  ok: false;
  error: { code: AdminErrorCode; message: string };
}

const requestToGateway: Record<RequestErrorCode, GatewayErrorCode> = {
  malformed_body: 'invalid_request',
  malformed_request: 'invalid_request',
  not_found: 'not_found',
  method_not_allowed: 'method_not_allowed',
  request_timeout: 'request_timeout',
  payload_too_large: 'payload_too_large',
  unsupported_media_type: 'unsupported_media_type',
};

const requestToAdmin: Record<RequestErrorCode, AdminErrorCode> = {
  malformed_body: 'invalid_request',
  malformed_request: 'invalid_request',
  not_found: 'not_found',
  method_not_allowed: 'method_not_allowed',
  request_timeout: 'request_timeout',
  payload_too_large: 'payload_too_large',
  unsupported_media_type: 'unsupported_media_type',
};

/** The protocol caps the error body's message (key 1) at 1,024 UTF-8 bytes (docs/protocol.md). */
const maxLicenseMessageBytes = 1_024;

/** `text` cut to at most `maxBytes` UTF-8 bytes on a character boundary, with `…` when cut. */
function truncateUtf8(text: string, maxBytes: number): string {
  const encoder = new TextEncoder();
  if (encoder.encode(text).length <= maxBytes) return text;
  let cut = '';
  let used = 3; // the ellipsis
  for (const character of text) {
    const size = encoder.encode(character).length;
    if (used + size > maxBytes) break;
    cut += character;
    used += size;
  }
  return `${cut}…`;
}

// Code 1000 may only be sent with these statuses; other transport refusals fall back to 400.
const licenseTransportStatuses = new Set([400, 401, 403, 405, 413, 415]);

function retryAfterHeader(seconds: number | undefined): Record<string, string> {
  return seconds === undefined ? {} : { 'retry-after': String(Math.max(0, Math.ceil(seconds))) };
}

/**
 * Renders any thrown value in the gateway envelope. Unknown errors become `internal_error` (500) with a
 * generic message, so internals never leak.
 *
 * @example
 * ```ts
 * import { renderGatewayError, GatewayError } from '@tollgate/core';
 * renderGatewayError(new GatewayError('not_found', 'No such ref.')).status; // 404
 * ```
 */
export function renderGatewayError(error: unknown): RenderedError<GatewayErrorBody> {
  let code: GatewayErrorCode = 'internal_error';
  let message = 'Internal error.';
  let details: Record<string, unknown> = {};
  let status: number = gatewayErrorCodes.internal_error.status;
  let headers: Record<string, string> = {};
  if (error instanceof RequestError) {
    code = requestToGateway[error.code];
    ({ message, details, status } = error);
  } else if (error instanceof GatewayError || (isTollgateError(error) && isGatewayErrorCode(error.code))) {
    code = error.code as GatewayErrorCode;
    ({ message, details } = error);
    status = gatewayErrorCodes[code].status;
    headers = retryAfterHeader((error as Partial<GatewayError>).retryAfterSeconds);
  }
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: { x402Version: 2, error: { code, message, details } },
  };
}

/**
 * Renders any thrown value as the license client protocol's CBOR error body
 * `{0: code, 1?: message, 2?: retry_after}`. Transport refusals become 1000; unknown errors 5000/500.
 *
 * @example
 * ```ts
 * import { renderLicenseClientError, LicenseClientError } from '@tollgate/core';
 * const { status, body } = renderLicenseClientError(new LicenseClientError(1004, 'X-LS-Proto must be 1'));
 * ```
 */
export function renderLicenseClientError(error: unknown): RenderedError<Uint8Array> {
  let code: number = 5000;
  let message: string | undefined = 'Internal error.';
  let status = 500;
  let retryAfter: number | undefined;
  if (error instanceof LicenseClientError) {
    ({ code, message, status } = error);
    retryAfter = error.retryAfterSeconds;
  } else if (error instanceof RequestError) {
    code = 1000;
    message = error.message;
    status = licenseTransportStatuses.has(error.status) ? error.status : 400;
  }
  const map = new Map<number, number | string>([[0, code]]);
  if (message) map.set(1, truncateUtf8(message, maxLicenseMessageBytes));
  if (retryAfter !== undefined) map.set(2, Math.max(0, Math.ceil(retryAfter)));
  return {
    status,
    headers: { 'content-type': 'application/cbor', 'cache-control': 'no-store', ...retryAfterHeader(retryAfter) },
    body: encodeCanonical(map),
  };
}

/**
 * Renders any thrown value in the Admin/webhook envelope `{ ok: false, error: { code, message } }`.
 *
 * @example
 * ```ts
 * import { renderAdminError, AdminError } from '@tollgate/core';
 * renderAdminError(new AdminError('invalid_token', 'Missing token.')).status; // 401
 * ```
 */
export function renderAdminError(error: unknown): RenderedError<AdminErrorBody> {
  let code: AdminErrorCode = 'internal_error';
  let message = 'Internal error.';
  let status = 500;
  let headers: Record<string, string> = {};
  if (error instanceof AdminError) {
    ({ code, message, status, headers } = error);
  } else if (error instanceof RequestError) {
    code = requestToAdmin[error.code];
    ({ message, status } = error);
  }
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: { ok: false, error: { code, message } },
  };
}
