import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '@tollgate/core';
import { listCursor } from './list-cursor';

interface Scope {
  readonly merchantId: string;
  readonly filter: string;
}

const key = new Uint8Array(32).fill(3);
const scope: Scope = { merchantId: 'm1', filter: 'a' };
const position = { createdAtMs: 1_767_225_600_123, id: 'x_00112233445566778899aabbccddeeff' };
const domain = 'tollgate/test-cursor/v1';
const cursors = listCursor<Scope>({ domain, scopeKeys: { merchantId: 'm', filter: 'f' }, hint: 'filter' });

/** A cursor over any payload, tagged as the module documents it (HMAC-SHA-256 of `domain NUL payload`). */
function tagged(payload: string, underDomain = domain): string {
  const tag = createHmac('sha256', key).update(`${underDomain}\u0000${payload}`).digest('base64url');
  return `${Buffer.from(payload).toString('base64url')}.${tag}`;
}

function refusal(run: () => unknown): GatewayError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof GatewayError && error.code === 'invalid_request' && error.details['field'] === 'cursor' ? error : undefined;
  }
}

const refused = (cursor: string, asScope: Scope = scope, asKey: Uint8Array = key) => refusal(() => cursors.decode(asKey, asScope, cursor)) !== undefined;

describe('list cursor', () => {
  it('is base64url of { v, scope keys in order, t, i } and its documented tag, and round-trips', () => {
    const cursor = cursors.encode(key, scope, position);
    expect(cursor).toBe(tagged('{"v":1,"m":"m1","f":"a","t":1767225600123,"i":"x_00112233445566778899aabbccddeeff"}'));
    expect(cursors.decode(key, scope, cursor)).toEqual(position);
    const unfiltered = { merchantId: 'm1', filter: '' };
    expect(cursors.decode(key, unfiltered, cursors.encode(key, unfiltered, position))).toEqual(position);
  });

  it('refuses every single-character alteration', () => {
    const cursor = cursors.encode(key, scope, position);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let index = 0; index < cursor.length; index++) {
      if (cursor[index] === '.') continue;
      const replacement = alphabet[(alphabet.indexOf(cursor[index] as string) + 1) % alphabet.length] as string;
      expect(refused(cursor.slice(0, index) + replacement + cursor.slice(index + 1))).toBe(true);
    }
  });

  it('refuses each other scope field, another key, and another list under the same key', () => {
    const cursor = cursors.encode(key, scope, position);
    expect(refused(cursor, { ...scope, merchantId: 'm2' })).toBe(true);
    expect(refused(cursor, { ...scope, filter: '' })).toBe(true);
    expect(refused(cursor, scope, new Uint8Array(32).fill(4))).toBe(true);
    const otherList = listCursor<Scope>({ domain: 'tollgate/other-cursor/v1', scopeKeys: { merchantId: 'm', filter: 'f' }, hint: 'filter' });
    expect(refused(otherList.encode(key, scope, position))).toBe(true);
    expect(refused(tagged('{"v":1,"m":"m1","f":"a","t":1,"i":"x"}', 'tollgate/other-cursor/v1'))).toBe(true);
  });

  it('refuses padding, truncation and garbage, naming what must stay the same', () => {
    const cursor = cursors.encode(key, scope, position);
    const [payload] = cursor.split('.') as [string];
    for (const bad of [`${cursor}=`, cursor.slice(0, -1), cursor.replace('.', ''), `${cursor}.x`, payload, '', 'abc', '.', 'a.b', 'e30.' + 'A'.repeat(43), 'x'.repeat(2_000)]) {
      expect(refused(bad)).toBe(true);
    }
    expect(refusal(() => cursors.decode(key, scope, ''))?.message).toBe('The cursor is not valid for this list: pass nextCursor unchanged, with the same filter.');
  });

  it('refuses a correctly tagged payload that is not a position of this scope', () => {
    expect(cursors.decode(key, scope, tagged('{"v":1,"m":"m1","f":"a","t":0,"i":""}'))).toEqual({ createdAtMs: 0, id: '' });
    // Payloads are bounded (900 base64url characters): a longer one is refused even with a good tag.
    const withId = (id: string) => tagged(`{"v":1,"m":"m1","f":"a","t":0,"i":"${id}"}`);
    expect(cursors.decode(key, scope, withId('x'.repeat(600))).id).toHaveLength(600);
    expect(refused(withId('x'.repeat(700)))).toBe(true);
    for (const payload of [
      'null',
      '1',
      '[]',
      'not json',
      '{"v":2,"m":"m1","f":"a","t":1,"i":"x"}',
      '{"m":"m1","f":"a","t":1,"i":"x"}',
      '{"v":1,"f":"a","t":1,"i":"x"}',
      '{"v":1,"m":"m1","f":1,"t":1,"i":"x"}',
      '{"v":1,"m":"m1","f":"a","t":1.5,"i":"x"}',
      '{"v":1,"m":"m1","f":"a","t":"1","i":"x"}',
      '{"v":1,"m":"m1","f":"a","t":9007199254740992,"i":"x"}',
      '{"v":1,"m":"m1","f":"a","t":1,"i":7}',
      '{"v":1,"m":"m1","f":"a","t":1}',
    ]) {
      expect(refused(tagged(payload)), payload).toBe(true);
    }
  });

  it('refuses a definition whose scope keys collide with v, t, i or each other', () => {
    expect(() => listCursor<Scope>({ domain, scopeKeys: { merchantId: 't', filter: 'f' }, hint: 'filter' })).toThrow(TypeError);
    expect(() => listCursor<Scope>({ domain, scopeKeys: { merchantId: 'm', filter: 'm' }, hint: 'filter' })).toThrow(TypeError);
  });
});
