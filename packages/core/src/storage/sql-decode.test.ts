import { describe, expect, it } from 'vitest';
import { decodeSqlValue, parseBytea, parsePgArrayLiteral, parseTimestamptz } from '@tollgate/core/storage';

describe('parseTimestamptz', () => {
  it('applies hour, minute and second offsets', () => {
    expect(parseTimestamptz('2026-01-01 05:30:00+05:30')).toEqual(new Date(Date.UTC(2026, 0, 1, 0, 0, 0)));
    expect(parseTimestamptz('2025-12-31 21:00:00-03')).toEqual(new Date(Date.UTC(2026, 0, 1, 0, 0, 0)));
    expect(parseTimestamptz('1900-01-01 00:00:00+00:19:32')).toEqual(new Date(Date.UTC(1899, 11, 31, 23, 40, 28)));
  });

  it('keeps milliseconds and truncates microseconds', () => {
    expect(parseTimestamptz('2026-01-01 00:00:00.5+00').getTime()).toBe(Date.UTC(2026, 0, 1, 0, 0, 0, 500));
    expect(parseTimestamptz('2026-01-01 00:00:00.123999+00').getTime()).toBe(Date.UTC(2026, 0, 1, 0, 0, 0, 123));
  });

  it('handles years before 100, BC years and infinities', () => {
    expect(parseTimestamptz('0099-06-01 00:00:00+00').getUTCFullYear()).toBe(99);
    expect(parseTimestamptz('0001-01-01 00:00:00+00 BC').getUTCFullYear()).toBe(0);
    expect(parseTimestamptz('infinity').getTime()).toBe(8.64e15);
    expect(parseTimestamptz('-infinity').getTime()).toBe(-8.64e15);
  });

  it('refuses text that is not an ISO timestamp', () => {
    expect(() => parseTimestamptz('Thu Jan 01 00:00:00 2026 UTC')).toThrow(TypeError);
  });
});

describe('parseBytea', () => {
  it('reads the hex and the legacy escape formats', () => {
    expect(parseBytea('\\x00ff')).toEqual(new Uint8Array([0, 255]));
    expect(parseBytea('a\\\\b\\001')).toEqual(new Uint8Array([97, 92, 98, 1]));
  });

  it('refuses malformed hex', () => {
    expect(() => parseBytea('\\x0')).toThrow(TypeError);
    expect(() => parseBytea('\\xzz')).toThrow(TypeError);
  });
});

describe('parsePgArrayLiteral', () => {
  it('parses quoting, escapes, NULL, nesting and dimension prefixes', () => {
    expect(parsePgArrayLiteral('{a,"b c","d\\"e","f\\\\g",NULL,"NULL"}')).toEqual(['a', 'b c', 'd"e', 'f\\g', null, 'NULL']);
    expect(parsePgArrayLiteral('{{1,2},{3,NULL}}')).toEqual([
      ['1', '2'],
      ['3', null],
    ]);
    expect(parsePgArrayLiteral('[0:1]={7,8}')).toEqual(['7', '8']);
    expect(parsePgArrayLiteral('{}')).toEqual([]);
    expect(parsePgArrayLiteral('{(0,0),(1,1);(2,2),(3,3)}', ';')).toEqual(['(0,0),(1,1)', '(2,2),(3,3)']);
  });

  it('refuses malformed literals', () => {
    for (const text of ['', '1,2', '{1,2', '{"a}', '{1,,2}', '{1}x', '[1:2]{1,2}']) {
      expect(() => parsePgArrayLiteral(text), text).toThrow(TypeError);
    }
  });
});

describe('decodeSqlValue', () => {
  it('returns the text for types without a dedicated decoding and null for NULL', () => {
    expect(decodeSqlValue('12:00:00', 1083)).toBe('12:00:00');
    expect(decodeSqlValue('{"(1,2)"}', 1017)).toBe('{"(1,2)"}');
    expect(decodeSqlValue(null, 23)).toBeNull();
  });
});
