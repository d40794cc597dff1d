import { describe, expect, it } from 'vitest';
import { decodeRefCursor, encodeRefCursor } from '@tollgate/core/gateway';

// The format itself (tag, alterations, garbage, the error's code and field) is tested in ../list-cursor.test.ts;
// these are the ref list's scope, bytes and hint.
const key = new Uint8Array(32).fill(3);
const scope = { merchantId: 'm1', payTo: '0x90F79bf6EB2c4f870365E785982E1f101E93b906' };
const position = { createdAtMs: 1_767_225_600_123, refId: '00112233445566778899aabbccddeeff' };
const refusal = 'The cursor is not valid for this list: pass nextCursor unchanged, with the same pay_to.';

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

  it('refuses another merchant or payTo, naming pay_to', () => {
    const cursor = encodeRefCursor(key, scope, position);
    expect(() => decodeRefCursor(key, { ...scope, merchantId: 'm2' }, cursor)).toThrow(refusal);
    expect(() => decodeRefCursor(key, { ...scope, payTo: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65' }, cursor)).toThrow(refusal);
  });
});
