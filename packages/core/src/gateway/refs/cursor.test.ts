import { describe, expect, it } from 'vitest';
import { GatewayError } from '@tollgate/core';
import { decodeRefCursor, encodeRefCursor } from '@tollgate/core/gateway';

const key = new Uint8Array(32).fill(3);
const scope = { merchantId: 'm1', payTo: '0x90F79bf6EB2c4f870365E785982E1f101E93b906' };
const position = { createdAtMs: 1_767_225_600_123, refId: '00112233445566778899aabbccddeeff' };

function refused(run: () => unknown): boolean {
  try {
    run();
    return false;
  } catch (error) {
    return error instanceof GatewayError && error.code === 'invalid_request' && error.details['field'] === 'cursor';
  }
}

describe('ref list cursor', () => {
  it('round-trips a position for the same scope and key', () => {
    const cursor = encodeRefCursor(key, scope, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(decodeRefCursor(key, scope, cursor)).toEqual(position);
  });

  it('refuses every single-character alteration', () => {
    const cursor = encodeRefCursor(key, scope, position);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let index = 0; index < cursor.length; index++) {
      if (cursor[index] === '.') continue;
      const replacement = alphabet[(alphabet.indexOf(cursor[index] as string) + 1) % alphabet.length] as string;
      const altered = cursor.slice(0, index) + replacement + cursor.slice(index + 1);
      expect(refused(() => decodeRefCursor(key, scope, altered))).toBe(true);
    }
  });

  it('refuses another scope, another key, padding, truncation and garbage', () => {
    const cursor = encodeRefCursor(key, scope, position);
    expect(refused(() => decodeRefCursor(key, { ...scope, merchantId: 'm2' }, cursor))).toBe(true);
    expect(refused(() => decodeRefCursor(key, { ...scope, payTo: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65' }, cursor))).toBe(true);
    expect(refused(() => decodeRefCursor(new Uint8Array(32).fill(4), scope, cursor))).toBe(true);
    for (const bad of [`${cursor}=`, cursor.slice(0, -1), cursor.replace('.', ''), `${cursor}.x`, '', 'abc', '.', 'e30.' + 'A'.repeat(43)]) {
      expect(refused(() => decodeRefCursor(key, scope, bad))).toBe(true);
    }
  });
});
