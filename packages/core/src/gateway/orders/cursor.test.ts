import { describe, expect, it } from 'vitest';
import { decodeOrderCursor, encodeOrderCursor, encodeRefCursor } from '@tollgate/core/gateway';

// The format itself (tag, alterations, garbage, the error's code and field) is tested in ../list-cursor.test.ts;
// these are the order list's scope, bytes and hint.
const key = new Uint8Array(32).fill(5);
const scope = { merchantId: 'm1', status: 'paid' };
const position = { createdAtMs: 1_767_225_600_123, orderId: 'ord_00112233445566778899aabbccddeeff' };
const refusal = 'The cursor is not valid for this list: pass nextCursor unchanged, with the same status filter.';

describe('order list cursor', () => {
  it('round-trips a position for the same merchant, filter and key', () => {
    const cursor = encodeOrderCursor(key, scope, position);
    expect(Buffer.from(cursor.split('.')[0] as string, 'base64url').toString()).toBe(
      '{"v":1,"m":"m1","s":"paid","t":1767225600123,"i":"ord_00112233445566778899aabbccddeeff"}',
    );
    expect(decodeOrderCursor(key, scope, cursor)).toEqual(position);
    expect(decodeOrderCursor(key, { merchantId: 'm1', status: '' }, encodeOrderCursor(key, { merchantId: 'm1', status: '' }, position))).toEqual(position);
  });

  it('refuses another merchant, another filter, and a ref list cursor, naming the status filter', () => {
    const cursor = encodeOrderCursor(key, scope, position);
    expect(() => decodeOrderCursor(key, { ...scope, merchantId: 'm2' }, cursor)).toThrow(refusal);
    expect(() => decodeOrderCursor(key, { ...scope, status: '' }, cursor)).toThrow(refusal);
    // Same key, same MAC construction, other domain: a ref cursor never passes for an order cursor.
    const refCursor = encodeRefCursor(key, { merchantId: 'm1', payTo: 'paid' }, { createdAtMs: position.createdAtMs, refId: position.orderId });
    expect(() => decodeOrderCursor(key, scope, refCursor)).toThrow(refusal);
  });
});
