import { listCursor } from '../list-cursor';

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

/** The codec of this list's cursors (the services page with it; the functions below are the public names). */
export const refListCursor = listCursor<RefCursorScope>({
  domain: 'tollgate/ref-cursor/v1',
  scopeKeys: { merchantId: 'm', payTo: 'p' },
  hint: 'pay_to',
});

/**
 * Encodes a list position as an opaque, tamper-proof cursor: `base64url(payload) "." base64url(tag)`,
 * where the payload is JSON `{ v: 1, m: merchantId, p: payTo, t: createdAtMs, i: refId }` and the tag
 * is HMAC-SHA-256 under the gateway's cursor key (see `../list-cursor`). Clients must not build or alter
 * cursors.
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
  return refListCursor.encode(key, scope, { createdAtMs: position.createdAtMs, id: position.refId });
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
  const { createdAtMs, id } = refListCursor.decode(key, scope, cursor);
  return { createdAtMs, refId: id };
}
