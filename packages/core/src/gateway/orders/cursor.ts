import { base64Decode, base64UrlEncode } from '../../crypto/base64';
import { constantTimeEqual } from '../../crypto/constant-time';
import { hmacSha256 } from '../../crypto/hash';
import { utf8Decode, utf8Encode } from '../../crypto/utf8';
import { GatewayError } from '../../errors/gateway';

/** Who an order list cursor belongs to: the same merchant and the same status filter (`''` for none). */
export interface OrderCursorScope {
  readonly merchantId: string;
  readonly status: string;
}

/** Where the next page starts: strictly older than this `(createdAt, orderId)`. */
export interface OrderCursorPosition {
  readonly createdAtMs: number;
  readonly orderId: string;
}

// Its own domain: a ref list cursor (same key, `tollgate/ref-cursor/v1`) never decodes as an order cursor.
const cursorDomain = utf8Encode('tollgate/order-cursor/v1\u0000');
const cursorShape = /^[A-Za-z0-9_-]{1,900}\.[A-Za-z0-9_-]{43}$/;

function tag(key: Uint8Array, payload: Uint8Array): Uint8Array {
  const message = new Uint8Array(cursorDomain.length + payload.length);
  message.set(cursorDomain, 0);
  message.set(payload, cursorDomain.length);
  return hmacSha256(key, message);
}

function invalidCursor(): GatewayError {
  return new GatewayError('invalid_request', 'The cursor is not valid for this list: pass nextCursor unchanged, with the same status filter.', {
    details: { field: 'cursor' },
  });
}

/**
 * Encodes a position of `GET /order` as an opaque, tamper-proof cursor: `base64url(payload) "."
 * base64url(tag)`, the payload JSON `{ v: 1, m: merchantId, s: status, t: createdAtMs, i: orderId }`,
 * the tag HMAC-SHA-256 under the gateway's cursor key with the order-cursor domain.
 *
 * @param key - The cursor MAC key (`GatewayKeys.cursor`).
 * @param scope - The merchant and status filter of the list.
 * @param position - The last order of the page.
 * @returns The cursor.
 * @example
 * ```ts
 * import { encodeOrderCursor } from '@tollgate/core/gateway';
 * const nextCursor = encodeOrderCursor(keys.cursor, { merchantId, status: 'paid' }, { createdAtMs: last.createdAt.getTime(), orderId: last.id });
 * ```
 */
export function encodeOrderCursor(key: Uint8Array, scope: OrderCursorScope, position: OrderCursorPosition): string {
  const payload = utf8Encode(JSON.stringify({ v: 1, m: scope.merchantId, s: scope.status, t: position.createdAtMs, i: position.orderId }));
  return `${base64UrlEncode(payload)}.${base64UrlEncode(tag(key, payload))}`;
}

/**
 * Decodes a cursor made by {@link encodeOrderCursor} for the same scope. Any altered character, a cursor
 * of another merchant or status filter, one made with another key, or a ref list cursor is refused.
 *
 * @param key - The cursor MAC key.
 * @param scope - The merchant and status filter of the request.
 * @param cursor - The cursor as received.
 * @returns The position.
 * @throws GatewayError `invalid_request` (`details.field: 'cursor'`).
 * @example
 * ```ts
 * import { decodeOrderCursor } from '@tollgate/core/gateway';
 * const { createdAtMs, orderId } = decodeOrderCursor(keys.cursor, { merchantId, status: '' }, query.cursor);
 * ```
 */
export function decodeOrderCursor(key: Uint8Array, scope: OrderCursorScope, cursor: string): OrderCursorPosition {
  // Unpadded base64url only, so each payload has exactly one spelling.
  if (!cursorShape.test(cursor)) throw invalidCursor();
  const [payloadText, tagText] = cursor.split('.') as [string, string];
  let parsed: unknown;
  try {
    const payload = base64Decode(payloadText);
    if (!constantTimeEqual(base64Decode(tagText), tag(key, payload))) throw invalidCursor();
    parsed = JSON.parse(utf8Decode(payload));
  } catch {
    throw invalidCursor();
  }
  const fields = parsed as { v?: unknown; m?: unknown; s?: unknown; t?: unknown; i?: unknown } | null;
  if (
    typeof fields !== 'object' ||
    fields === null ||
    fields.v !== 1 ||
    fields.m !== scope.merchantId ||
    fields.s !== scope.status ||
    typeof fields.t !== 'number' ||
    !Number.isSafeInteger(fields.t) ||
    typeof fields.i !== 'string'
  ) {
    throw invalidCursor();
  }
  return { createdAtMs: fields.t, orderId: fields.i };
}
