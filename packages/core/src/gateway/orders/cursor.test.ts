import { describe, expect, it } from 'vitest';
import { GatewayError } from '@tollgate/core';
import { decodeOrderCursor, encodeOrderCursor, encodeRefCursor } from '@tollgate/core/gateway';

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
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(decodeOrderCursor(key, scope, cursor)).toEqual(position);
    expect(decodeOrderCursor(key, { merchantId: 'm1', status: '' }, encodeOrderCursor(key, { merchantId: 'm1', status: '' }, position))).toEqual(position);
  });

  it('refuses every single-character alteration', () => {
    const cursor = encodeOrderCursor(key, scope, position);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let index = 0; index < cursor.length; index++) {
      if (cursor[index] === '.') continue;
      const replacement = alphabet[(alphabet.indexOf(cursor[index] as string) + 1) % alphabet.length] as string;
      expect(refused(() => decodeOrderCursor(key, scope, cursor.slice(0, index) + replacement + cursor.slice(index + 1)))).toBe(true);
    }
  });

  it('refuses another merchant, another filter, another key, a ref list cursor, and garbage', () => {
    const cursor = encodeOrderCursor(key, scope, position);
    expect(refused(() => decodeOrderCursor(key, { ...scope, merchantId: 'm2' }, cursor))).toBe(true);
    expect(refused(() => decodeOrderCursor(key, { ...scope, status: '' }, cursor))).toBe(true);
    expect(refused(() => decodeOrderCursor(new Uint8Array(32).fill(6), scope, cursor))).toBe(true);
    // Same key, same MAC construction, other domain: a ref cursor never passes for an order cursor.
    const refCursor = encodeRefCursor(key, { merchantId: 'm1', payTo: 'paid' }, { createdAtMs: position.createdAtMs, refId: position.orderId });
    expect(refused(() => decodeOrderCursor(key, scope, refCursor))).toBe(true);
    for (const garbage of ['', '.', 'a.b', `${cursor}=`, `${cursor}.x`, cursor.split('.')[0] as string, 'x'.repeat(2_000)]) {
      expect(refused(() => decodeOrderCursor(key, scope, garbage))).toBe(true);
    }
  });
});
