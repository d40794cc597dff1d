import { describe, expect, it } from 'vitest';
import { encodeSqlParam, encodeSqlParams } from '@tollgate/core/storage';

describe('encodeSqlParam', () => {
  it('encodes scalars to Postgres text input', () => {
    expect(encodeSqlParams(['text', 42, -1.5, 12345678901234567890n, true, false, null, undefined])).toEqual([
      'text',
      '42',
      '-1.5',
      '12345678901234567890',
      'true',
      'false',
      null,
      null,
    ]);
    expect(encodeSqlParams(undefined)).toEqual([]);
  });

  it('encodes dates as UTC ISO 8601 and bytes as bytea hex', () => {
    expect(encodeSqlParam(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)))).toBe('2026-01-02T03:04:05.006Z');
    expect(encodeSqlParam(new Uint8Array([0, 10, 255]))).toBe('\\x000aff');
    expect(encodeSqlParam(new Uint8Array([]))).toBe('\\x');
  });

  it('encodes arrays as quoted, escaped array literals, nested and with NULLs', () => {
    expect(encodeSqlParam([1, null, 'a"b', 'c\\d', 'e,f', ''])).toBe('{"1",NULL,"a\\"b","c\\\\d","e,f",""}');
    expect(encodeSqlParam([[1, 2], [3, 4]])).toBe('{{"1","2"},{"3","4"}}');
    expect(encodeSqlParam([])).toBe('{}');
    expect(encodeSqlParam([new Uint8Array([1])])).toBe('{"\\\\x01"}');
  });

  it('encodes other objects as JSON', () => {
    expect(encodeSqlParam({ a: [1, 'x'], b: null })).toBe('{"a":[1,"x"],"b":null}');
  });

  it('refuses values without a SQL meaning', () => {
    expect(() => encodeSqlParam((() => 1) as unknown as string)).toThrow(TypeError);
    expect(() => encodeSqlParam(Symbol('s') as unknown as string)).toThrow(TypeError);
    expect(() => encodeSqlParam(new Date(Number.NaN))).toThrow(TypeError);
    expect(() => encodeSqlParam({ toJSON: () => undefined })).toThrow(TypeError);
  });
});
