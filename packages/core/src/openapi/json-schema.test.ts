import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { listRefsQuerySchema } from '../gateway/refs/schemas';
import { evmAddressSchema, publicHttpsUrlSchema, utf8TextSchema } from '../fields/schema-fields';
import { networkSchema } from '../x402/wire';
import { describes } from '../gateway/openapi/schemas/common';
import { toComponentSchemas, toInlineSchema } from './json-schema';

describe('valibot → JSON Schema for the OpenAPI document', () => {
  it('fails on a feature it cannot express instead of dropping it', () => {
    expect(() => toInlineSchema(v.pipe(v.string(), v.creditCard()), 'input')).toThrow(/credit_card/);
    expect(() => toInlineSchema(v.date(), 'output')).toThrow(/date/);
  });

  it('states custom predicates in words, and with a pattern where a shared field has one', () => {
    expect(toInlineSchema(evmAddressSchema, 'input')).toEqual({
      type: 'string',
      pattern: '^0x[0-9a-fA-F]{40}$',
      description: 'Expected: an EVM address (0x followed by 40 hex digits) with a valid checksum.',
    });
    expect(toInlineSchema(publicHttpsUrlSchema, 'input')).toMatchObject({ type: 'string', format: 'uri', pattern: '^https://', description: expect.stringMatching(/^Expected: a public HTTPS URL on port 443/) });
    expect(toInlineSchema(v.pipe(v.string(), v.check(() => true, 'an even length')), 'input')).toEqual({ type: 'string', description: 'Expected: an even length.' });
    expect(toInlineSchema(v.pipe(v.string(), v.check(() => true, () => 'computed')), 'input')).toEqual({ type: 'string', description: 'Expected: further rules that its error message names.' });
    expect(toInlineSchema(v.custom<object>(() => true, 'a plain object'), 'input')).toEqual({ description: 'Expected: a plain object.' });
    // Another raw_check is not the public HTTPS URL's: its rule is the one its messages name.
    expect(toInlineSchema(v.pipe(v.string(), v.rawCheck(() => undefined)), 'input')).toEqual({ type: 'string', description: 'Expected: further rules that its error message names.' });
  });

  it('bounds UTF-8 text by code points (a true bound: a code point is at least one byte) and states the byte bound', () => {
    const schema = toInlineSchema(utf8TextSchema(120), 'input');
    expect(schema).toMatchObject({ type: 'string', minLength: 1, maxLength: 120 });
    expect(schema.description).toContain('at most 120 UTF-8 bytes');
  });

  it('reads a request up to its first transform and a response past its casts', () => {
    // `limit` is a string in the query; its bound after the transform reaches the reader through the regex message.
    expect(toInlineSchema(listRefsQuerySchema, 'input').properties?.['limit']).toEqual({
      type: 'string',
      pattern: '^[1-9][0-9]{0,2}$',
      default: '50',
      description: 'Expected: an integer from 1 to 100.',
    });
    expect(toInlineSchema(networkSchema, 'output')).toEqual({ type: 'string', minLength: 3, pattern: ':' });
    expect(() => toInlineSchema(networkSchema, 'input')).not.toThrow();
  });

  it('refers to named schemas wherever they are nested', () => {
    const snapshot = v.object({ v: v.literal(2) });
    const components = toComponentSchemas({ Snapshot: snapshot, Ref: v.object({ snapshot, list: v.array(snapshot) }) }, 'output');
    expect(components['Ref']).toEqual({
      type: 'object',
      properties: { snapshot: { $ref: '#/components/schemas/Snapshot' }, list: { type: 'array', items: { $ref: '#/components/schemas/Snapshot' } } },
      required: ['snapshot', 'list'],
    });
    expect(toInlineSchema(v.object({ inner: snapshot }), 'output', { Snapshot: snapshot }).properties?.['inner']).toEqual({ $ref: '#/components/schemas/Snapshot' });
  });

  it('ties response schemas to their types at compile time', () => {
    const ok = describes<{ readonly refId: string; readonly tags: readonly string[]; readonly hash: `0x${string}` }>()(
      v.object({ refId: v.string(), tags: v.array(v.string()), hash: v.string() }),
    );
    expect(ok.type).toBe('object');
    // @ts-expect-error a field of the type is missing from the schema
    describes<{ refId: string; status: 'active' }>()(v.object({ refId: v.string() }));
    // @ts-expect-error the schema has a field the type does not
    describes<{ refId: string }>()(v.object({ refId: v.string(), extra: v.number() }));
    // @ts-expect-error a literal of the type is a plain string in the schema
    describes<{ status: 'active' | 'revoked' }>()(v.object({ status: v.string() }));
  });
});
