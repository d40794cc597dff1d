import * as v from 'valibot';
import { base64Decode, base64Encode } from '../crypto/base64';
import { utf8Decode, utf8Encode } from '../crypto/utf8';
import { parseJsonWithUniqueKeys, quoteJsonKey } from '../json';
import { X402HeaderError } from './errors';
import {
  issuePath,
  paymentPayloadSchema,
  paymentRequiredSchema,
  settleResponseSchema,
  type PaymentPayload,
  type PaymentRequired,
  type SettleResponse,
} from './wire';

/** The x402 v2 header names (HTTP header names are case-insensitive; these are the spec's spelling). */
export const x402HeaderNames = {
  paymentRequired: 'PAYMENT-REQUIRED',
  paymentSignature: 'PAYMENT-SIGNATURE',
  paymentResponse: 'PAYMENT-RESPONSE',
} as const;

/** Default cap on a `PAYMENT-*` header value: 16 KiB of base64, far above a real payload with echoed extensions (~5 KiB). */
export const X402_HEADER_MAX_BYTES = 16 * 1024;

/**
 * Deepest nesting of arrays and objects a `PAYMENT-*` header may hold. A real payment nests about six
 * levels (`extensions.offer-receipt.info.offers[0].payload`); recursive consumers of the decoded value
 * (RFC 8785 canonicalization, schema checks) would exhaust the stack on thousands of levels.
 */
export const X402_HEADER_MAX_DEPTH = 32;

/** Options of the header decoders. */
export interface DecodeX402HeaderOptions {
  /** Largest accepted header value in characters (= bytes, base64 is ASCII). Default {@link X402_HEADER_MAX_BYTES}. */
  maxBytes?: number;
}

/**
 * Encodes a value as an x402 header: standard base64 (`+/`, padded) of its UTF-8 JSON. Official x402 v2
 * clients reject the URL alphabet, so Tollgate always emits the standard one (ARCHITECTURE.md §4).
 *
 * @param value - A JSON-serialisable value (a `PaymentRequired`, `PaymentPayload` or settlement response).
 * @returns The header value.
 *
 * @example
 * ```ts
 * import { encodeX402Header, buildPaymentRequired } from '@tollgate/core/x402';
 * headers['payment-required'] = encodeX402Header(buildPaymentRequired({ resource, accepts }));
 * ```
 */
export function encodeX402Header(value: unknown): string {
  return base64Encode(utf8Encode(JSON.stringify(value)));
}

/** Whether `value` nests arrays and objects deeper than `maxDepth` (checked iteratively: no recursion). */
function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    const depth = next.depth + 1;
    if (depth > maxDepth) return true;
    for (const child of Object.values(next.value)) if (typeof child === 'object' && child !== null) pending.push({ value: child, depth });
  }
  return false;
}

/** Runs the decode pipeline up to the parsed JSON; each failing step throws with its own reason. */
function decodeJson(header: string, text: unknown, maxBytes: number): unknown {
  if (typeof text !== 'string' || text.trim() === '') throw new X402HeaderError(header, 'missing', `The ${header} header is missing or empty.`);
  // Optional whitespace around a field value is not part of it (RFC 9110 §5.5); proxies may leave it.
  const trimmed = text.trim();
  if (trimmed.length > maxBytes) {
    throw new X402HeaderError(header, 'too_large', `The ${header} header exceeds ${maxBytes} bytes.`, { details: { maxBytes } });
  }
  let bytes: Uint8Array;
  try {
    bytes = base64Decode(trimmed);
  } catch (cause) {
    throw new X402HeaderError(header, 'invalid_base64', `The ${header} header is not base64 or base64url.`, { cause });
  }
  let json: string;
  try {
    json = utf8Decode(bytes);
  } catch (cause) {
    throw new X402HeaderError(header, 'invalid_utf8', `The ${header} header does not decode to UTF-8 text.`, { cause });
  }
  const parsed = parseJsonWithUniqueKeys(json);
  if (!parsed.ok && parsed.reason === 'invalid_json') {
    throw new X402HeaderError(header, 'invalid_json', `The ${header} header does not decode to JSON.`, { cause: parsed.cause });
  }
  if (!parsed.ok) {
    // Two `value`s in an authorization could be read differently by the facilitator or a proxy.
    throw new X402HeaderError(header, 'invalid_json', `The ${header} header's JSON repeats the key ${quoteJsonKey(parsed.key)}.`);
  }
  const { value } = parsed;
  if (nestsDeeperThan(value, X402_HEADER_MAX_DEPTH)) {
    throw new X402HeaderError(header, 'too_deep', `The ${header} header nests arrays or objects deeper than ${X402_HEADER_MAX_DEPTH} levels.`, {
      details: { maxDepth: X402_HEADER_MAX_DEPTH },
    });
  }
  return value;
}

function checkVersion(header: string, value: unknown, versionRequired: boolean): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new X402HeaderError(header, 'invalid_shape', `The ${header} header must hold a JSON object.`, { details: { field: '' } });
  }
  const version = (value as { x402Version?: unknown }).x402Version;
  if (version === undefined && !versionRequired) return;
  if (version !== 2) {
    throw new X402HeaderError(header, 'unsupported_version', `Only x402Version 2 is supported in ${header}.`, {
      details: { x402Version: typeof version === 'number' ? version : null },
    });
  }
}

function checkShape<Schema extends v.GenericSchema>(header: string, schema: Schema, value: unknown): v.InferOutput<Schema> {
  const parsed = v.safeParse(schema, value);
  if (!parsed.success) {
    const field = issuePath(parsed.issues);
    throw new X402HeaderError(header, 'invalid_shape', `The ${header} header is not a valid x402 v2 value (${field || 'root'}: ${parsed.issues[0]?.message}).`, {
      details: { field },
    });
  }
  return parsed.output;
}

/**
 * Decodes a `PAYMENT-SIGNATURE` header into an x402 v2 `PaymentPayload`. Steps, each refusing with its
 * own {@link X402HeaderError} reason: size cap (before any work), base64 in either alphabet (the spec
 * says base64url, official clients send standard base64), fatal UTF-8, JSON whose objects never repeat
 * a key (a repeated key is `invalid_json`), nesting depth (at most
 * {@link X402_HEADER_MAX_DEPTH} levels), `x402Version === 2`, then
 * the `PaymentPayload` schema. The scheme-specific `payload` is checked later by `verifyExactPayment`.
 *
 * @param text - The header value (`undefined` when absent).
 * @param options - The size cap.
 * @returns The payload, with every key the client sent.
 * @throws {@link X402HeaderError} naming the failed step.
 *
 * @example
 * ```ts
 * import { decodePaymentSignatureHeader } from '@tollgate/core/x402';
 * const payload = decodePaymentSignatureHeader(request.headers['payment-signature']);
 * console.log(payload.accepted.amount);
 * ```
 */
export function decodePaymentSignatureHeader(text: string | undefined, options: DecodeX402HeaderOptions = {}): PaymentPayload {
  const header = x402HeaderNames.paymentSignature;
  const value = decodeJson(header, text, options.maxBytes ?? X402_HEADER_MAX_BYTES);
  checkVersion(header, value, true);
  return checkShape(header, paymentPayloadSchema, value) as PaymentPayload;
}

/**
 * Decodes a `PAYMENT-REQUIRED` header (client side and tests), with the same steps as
 * {@link decodePaymentSignatureHeader} and the `PaymentRequired` schema.
 *
 * @param text - The header value.
 * @param options - The size cap.
 * @returns The payment requirements.
 * @throws {@link X402HeaderError} naming the failed step.
 *
 * @example
 * ```ts
 * import { decodePaymentRequiredHeader } from '@tollgate/core/x402';
 * const required = decodePaymentRequiredHeader(response.headers.get('payment-required') ?? undefined);
 * console.log(required.accepts[0]?.amount);
 * ```
 */
export function decodePaymentRequiredHeader(text: string | undefined, options: DecodeX402HeaderOptions = {}): PaymentRequired {
  const header = x402HeaderNames.paymentRequired;
  const value = decodeJson(header, text, options.maxBytes ?? X402_HEADER_MAX_BYTES);
  checkVersion(header, value, true);
  return checkShape(header, paymentRequiredSchema, value) as PaymentRequired;
}

/**
 * Decodes a `PAYMENT-RESPONSE` header (client side and tests) into a `SettleResponse`. Official
 * facilitators' settle responses carry no `x402Version`; when present (Tollgate's bodies) it must be 2.
 * Tollgate's extra fields (`receiptStatus`, `response`, `extensions`) are kept.
 *
 * @param text - The header value.
 * @param options - The size cap.
 * @returns The settlement response.
 * @throws {@link X402HeaderError} naming the failed step.
 *
 * @example
 * ```ts
 * import { decodePaymentResponseHeader } from '@tollgate/core/x402';
 * const settled = decodePaymentResponseHeader(response.headers.get('payment-response') ?? undefined);
 * console.log(settled.success, settled.transaction);
 * ```
 */
export function decodePaymentResponseHeader(text: string | undefined, options: DecodeX402HeaderOptions = {}): SettleResponse & Record<string, unknown> {
  const header = x402HeaderNames.paymentResponse;
  const value = decodeJson(header, text, options.maxBytes ?? X402_HEADER_MAX_BYTES);
  checkVersion(header, value, false);
  return checkShape(header, settleResponseSchema, value) as SettleResponse & Record<string, unknown>;
}
