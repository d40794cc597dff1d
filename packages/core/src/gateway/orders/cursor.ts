import { listCursor } from '../list-cursor';

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

/** The codec of this list's cursors (the services page with it; the functions below are the public names). */
export const orderListCursor = listCursor<OrderCursorScope>({
  // Its own domain: a ref list cursor (same key, `tollgate/ref-cursor/v1`) never decodes as an order cursor.
  domain: 'tollgate/order-cursor/v1',
  scopeKeys: { merchantId: 'm', status: 's' },
  hint: 'status filter',
});

/**
 * Encodes a position of `GET /order` as an opaque, tamper-proof cursor: `base64url(payload) "."
 * base64url(tag)`, the payload JSON `{ v: 1, m: merchantId, s: status, t: createdAtMs, i: orderId }`,
 * the tag HMAC-SHA-256 under the gateway's cursor key with the order-cursor domain (see `../list-cursor`).
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
  return orderListCursor.encode(key, scope, { createdAtMs: position.createdAtMs, id: position.orderId });
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
  const { createdAtMs, id } = orderListCursor.decode(key, scope, cursor);
  return { createdAtMs, orderId: id };
}
