import { base64Decode, base64UrlEncode } from '../../crypto/base64';
import { constantTimeEqual } from '../../crypto/constant-time';
import { hmacSha256 } from '../../crypto/hash';
import { utf8Decode, utf8Encode } from '../../crypto/utf8';
import { GatewayError } from '../../errors/gateway';

/** Who a list cursor belongs to: it is only valid for the same merchant and payTo. */
export interface RefCursorScope {
  readonly merchantId: string;
  readonly payTo: string;
}

/** Where the next page starts: strictly older than this `(createdAt, refId)`. */
export interface RefCursorPosition {
  readonly createdAtMs: number;
  readonly refId: string;
}

const cursorDomain = utf8Encode('tollgate/ref-cursor/v1\u0000');
const cursorShape = /^[A-Za-z0-9_-]{1,900}\.[A-Za-z0-9_-]{43}$/;

function tag(key: Uint8Array, payload: Uint8Array): Uint8Array {
  const message = new Uint8Array(cursorDomain.length + payload.length);
  message.set(cursorDomain, 0);
  message.set(payload, cursorDomain.length);
  return hmacSha256(key, message);
}

function invalidCursor(): GatewayError {
  return new GatewayError('invalid_request', 'The cursor is not valid for this list: pass nextCursor unchanged, with the same pay_to.', {
    details: { field: 'cursor' },
  });
}

/**
 * Encodes a list position as an opaque, tamper-proof cursor: `base64url(payload) "." base64url(tag)`,
 * where the payload is JSON `{ v: 1, m: merchantId, p: payTo, t: createdAtMs, i: refId }` and the tag
 * is HMAC-SHA-256 under the gateway's cursor key. Clients must not build or alter cursors.
 *
 * @param key - The cursor MAC key (`GatewayKeys.cursor`).
 * @param scope - The merchant and payTo of the list.
 * @param position - The last item of the page.
 * @returns The cursor.
 * @example
 * ```ts
 * import { encodeRefCursor } from '@tollgate/core/gateway';
 * const nextCursor = encodeRefCursor(keys.cursor, { merchantId, payTo }, { createdAtMs: last.createdAt.getTime(), refId: last.id });
 * ```
 */
export function encodeRefCursor(key: Uint8Array, scope: RefCursorScope, position: RefCursorPosition): string {
  const payload = utf8Encode(JSON.stringify({ v: 1, m: scope.merchantId, p: scope.payTo, t: position.createdAtMs, i: position.refId }));
  return `${base64UrlEncode(payload)}.${base64UrlEncode(tag(key, payload))}`;
}

/**
 * Decodes a cursor made by {@link encodeRefCursor} for the same scope. Any change to any character, a
 * cursor of another merchant or payTo, or a cursor made with another key is refused.
 *
 * @param key - The cursor MAC key.
 * @param scope - The merchant and payTo of the request.
 * @param cursor - The cursor as received.
 * @returns The position.
 * @throws GatewayError `invalid_request` (`details.field: 'cursor'`).
 * @example
 * ```ts
 * import { decodeRefCursor } from '@tollgate/core/gateway';
 * const { createdAtMs, refId } = decodeRefCursor(keys.cursor, { merchantId, payTo }, query.cursor);
 * ```
 */
export function decodeRefCursor(key: Uint8Array, scope: RefCursorScope, cursor: string): RefCursorPosition {
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
  const fields = parsed as { v?: unknown; m?: unknown; p?: unknown; t?: unknown; i?: unknown } | null;
  if (
    typeof fields !== 'object' ||
    fields === null ||
    fields.v !== 1 ||
    fields.m !== scope.merchantId ||
    fields.p !== scope.payTo ||
    typeof fields.t !== 'number' ||
    !Number.isSafeInteger(fields.t) ||
    typeof fields.i !== 'string'
  ) {
    throw invalidCursor();
  }
  return { createdAtMs: fields.t, refId: fields.i };
}
