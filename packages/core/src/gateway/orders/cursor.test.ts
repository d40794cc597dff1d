import { describe, expect, it } from 'vitest';
import { GatewayError } from '@tollgate/core';
import { decodeOrderCursor, encodeOrderCursor, encodeRefCursor } from '@tollgate/core/gateway';

// The generic format (tag, alterations, garbage) is tested in ../list-cursor.test.ts; these are the order list's scope and bytes.
const key = new Uint8Array(32).fill(5);
const scope = { merchantId: 'm1', status: 'paid' };
const position = { createdAtMs: 1_767_225_600_123, orderId: 'ord_00112233445566778899aabbccddeeff' };

function refused(run: () => unknown): boolean {
  try {
    run();
    return false;
  } catch (error) {
    return error instanceof GatewayError && error.code === 'invalid_request' && error.details['field'] === 'cursor';
  }
}

describe('order list cursor', () => {
  it('round-trips a position for the same merchant, filter and key', () => {
    const cursor = encodeOrderCursor(key, scope, position);
    expect(Buffer.from(cursor.split('.')[0] as string, 'base64url').toString()).toBe(
      '{"v":1,"m":"m1","s":"paid","t":1767225600123,"i":"ord_00112233445566778899aabbccddeeff"}',
    );
    expect(decodeOrderCursor(key, scope, cursor)).toEqual(position);
    expect(decodeOrderCursor(key, { merchantId: 'm1', status: '' }, encodeOrderCursor(key, { merchantId: 'm1', status: '' }, position))).toEqual(position);
  });

  it('refuses another merchant, another filter, and a ref list cursor, and names the status filter', () => {
    const cursor = encodeOrderCursor(key, scope, position);
    expect(refused(() => decodeOrderCursor(key, { ...scope, merchantId: 'm2' }, cursor))).toBe(true);
    expect(refused(() => decodeOrderCursor(key, { ...scope, status: '' }, cursor))).toBe(true);
    // Same key, same MAC construction, other domain: a ref cursor never passes for an order cursor.
    const refCursor = encodeRefCursor(key, { merchantId: 'm1', payTo: 'paid' }, { createdAtMs: position.createdAtMs, refId: position.orderId });
    expect(refused(() => decodeOrderCursor(key, scope, refCursor))).toBe(true);
    expect(() => decodeOrderCursor(key, scope, 'abc')).toThrow('The cursor is not valid for this list: pass nextCursor unchanged, with the same status filter.');
  });
});
