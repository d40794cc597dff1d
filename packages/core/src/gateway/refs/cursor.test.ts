import { describe, expect, it } from 'vitest';
import { GatewayError } from '@tollgate/core';
import { decodeRefCursor, encodeRefCursor } from '@tollgate/core/gateway';

// The generic format (tag, alterations, garbage) is tested in ../list-cursor.test.ts; these are the ref list's scope and bytes.
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
    expect(decodeRefCursor(key, scope, encodeRefCursor(key, scope, position))).toEqual(position);
  });

  it('keeps its bytes: a cursor issued before keeps decoding', () => {
    // Payload {"v":1,"m":"m1","p":"0x90F7…","t":1767225600123,"i":"0011…"}, tagged under tollgate/ref-cursor/v1.
    const issued =
      'eyJ2IjoxLCJtIjoibTEiLCJwIjoiMHg5MEY3OWJmNkVCMmM0Zjg3MDM2NUU3ODU5ODJFMWYxMDFFOTNiOTA2IiwidCI6MTc2NzIyNTYwMDEyMywiaSI6IjAwMTEyMjMzNDQ1NTY2Nzc4ODk5YWFiYmNjZGRlZWZmIn0.C9f2_8dw7Lrp8PiMTdEEuXdwR2iip5c9InXml7-iS9I';
    expect(encodeRefCursor(key, scope, position)).toBe(issued);
    expect(decodeRefCursor(key, scope, issued)).toEqual(position);
  });

  it('refuses another merchant or payTo, and names pay_to', () => {
    const cursor = encodeRefCursor(key, scope, position);
    expect(refused(() => decodeRefCursor(key, { ...scope, merchantId: 'm2' }, cursor))).toBe(true);
    expect(refused(() => decodeRefCursor(key, { ...scope, payTo: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65' }, cursor))).toBe(true);
    expect(() => decodeRefCursor(key, scope, 'abc')).toThrow('The cursor is not valid for this list: pass nextCursor unchanged, with the same pay_to.');
  });
});
