import { describe, expect, it } from 'vitest';
import { parseJsonWithUniqueKeys, quoteJsonKey, type UniqueKeyJsonParse } from './index';

function duplicateOf(text: string): string | undefined {
  const parsed = parseJsonWithUniqueKeys(text);
  if (parsed.ok) return undefined;
  if (parsed.reason === 'duplicate_key') return parsed.key;
  throw new Error(`expected valid JSON, JSON.parse refused: ${text.slice(0, 80)}`);
}

function accepted(text: string): unknown {
  const parsed = parseJsonWithUniqueKeys(text);
  if (!parsed.ok) throw new Error(`refused (${parsed.reason}): ${text.slice(0, 80)}`);
  return parsed.value;
}

describe('parseJsonWithUniqueKeys', () => {
  it('returns what JSON.parse returns when no object repeats a key', () => {
    for (const text of ['{}', '[]', '1', '"x"', 'null', ' true ', '{"a":1,"b":[1,{"a":2}],"c":{"a":{"a":3}}}', '{"a":1,"A":2,"1":3,"01":4,"1.0":5,"":6}']) {
      expect(accepted(text), text).toEqual(JSON.parse(text));
    }
  });

  it('refuses a repeated key and names it', () => {
    expect(duplicateOf('{"amount":"5","amount":"6"}')).toBe('amount');
    expect(duplicateOf('{ "a" : 1 ,\n\t"a"\r\n:\n2 }')).toBe('a');
    expect(duplicateOf('{"":1,"":2}')).toBe('');
    expect(duplicateOf('{"a":1,"b":2,"c":3,"b":4,"a":5}')).toBe('b'); // the first repeat in text order
    expect(duplicateOf('{"a":1,"a":1}')).toBe('a'); // even with the same value
  });

  it('compares keys after unescaping, as JSON.parse merges them', () => {
    expect(duplicateOf('{"a":1,"\\u0061":2}')).toBe('a');
    expect(duplicateOf('{"\\u0041b":1,"Ab":2}')).toBe('Ab');
    expect(duplicateOf('{"a/b":1,"a\\/b":2}')).toBe('a/b');
    expect(duplicateOf('{"q\\"":1,"q\\u0022":2}')).toBe('q"');
    expect(duplicateOf('{"\\\\":1,"\\u005c":2}')).toBe('\\');
    expect(duplicateOf('{"\\n":1,"\\u000a":2}')).toBe('\n');
    expect(duplicateOf('{"😀":1,"\\ud83d\\ude00":2}')).toBe('😀');
    expect(duplicateOf('{"\\uD83D\\uDE00":1,"\\ud83d\\ude00":2}')).toBe('😀');
    expect(duplicateOf('{"\\ud800":1,"\\uD800":2}')).toBe('\ud800'); // lone surrogates are keys too
    expect(accepted('{"a":1,"\\u0062":2,"\\u0041":3}')).toEqual({ a: 1, b: 2, A: 3 });
  });

  it('checks each object on its own, at every depth and inside arrays', () => {
    expect(accepted('{"a":{"a":1},"b":{"a":2,"b":3},"c":[{"a":1},{"a":2}]}')).toBeTruthy();
    expect(accepted('[{"a":1},{"a":1},[{"a":1}]]')).toBeTruthy();
    expect(duplicateOf('{"x":{"a":1,"a":2}}')).toBe('a');
    expect(duplicateOf('[{"ok":1},{"a":1,"b":{},"a":2}]')).toBe('a');
    expect(duplicateOf('[[[{"k":[{"z":{"y":1,"y":2}}]}]]]')).toBe('y');
    // A key that closes and reopens an object is a new object's key, not the outer one's.
    expect(duplicateOf('{"a":{"b":1},"b":2,"c":[1,{"b":3}],"a":4}')).toBe('a');
  });

  it('is not fooled by strings holding braces, brackets, colons, commas, quotes or escapes', () => {
    const tricky = [
      '{"s":"{\\"a\\":1,\\"a\\":2}","a":1}',
      '{"a":"\\\\","b":"\\\\\\"","c":"\\"}\\"","d":"]:[,{"}',
      '{"a\\":b":1,"a":2,"a\\"":3}',
      '{"k":"x\\":","x":1,"\\":":2}',
      '["\\":","a",{"a":"a:a","\\"a\\"":"\\u0022a\\u0022"}]',
      '{"url":"https://pay.example.com:443/r?x=1","network":"eip155:8453"}',
    ];
    for (const text of tricky) expect(accepted(text), text).toEqual(JSON.parse(text));
    expect(duplicateOf('{"s":"}","t":"{","s":"x"}')).toBe('s');
    expect(duplicateOf('{"\\":":1,"\\u0022:":2}')).toBe('":');
    expect(duplicateOf('{"s":"\\\\","\\\\":1,"\\\\":2}')).toBe('\\');
    // Whether a quote ends a string depends on the parity of the backslashes before it.
    expect(duplicateOf('{"v":"\\\\","w":"\\\\\\\\\\"","v":1}')).toBe('v');
  });

  it('refuses two __proto__ keys and keeps a single one as JSON.parse does (an own key, prototype untouched)', () => {
    expect(duplicateOf('{"__proto__":1,"__proto__":2}')).toBe('__proto__');
    expect(duplicateOf('{"__proto__":{"a":1},"\\u005f_proto__":{}}')).toBe('__proto__');
    const value = accepted('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(value['polluted']).toBeUndefined();
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(JSON.stringify(value)).toBe(JSON.stringify(JSON.parse('{"__proto__":{"polluted":true},"a":1}')));
    expect(accepted('{"constructor":1,"prototype":2,"toString":3,"hasOwnProperty":4}')).toEqual(JSON.parse('{"constructor":1,"prototype":2,"toString":3,"hasOwnProperty":4}'));
  });

  it('stays exact when Object.prototype carries an enumerable key', () => {
    const prototype = Object.prototype as Record<string, unknown>;
    prototype['planted'] = 1;
    try {
      expect(duplicateOf('{"a":1,"a":2}')).toBe('a');
      expect(duplicateOf('{"x":{},"a":{"b":1,"b":2}}')).toBe('b');
      expect(accepted('{"a":1,"b":{"c":2}}')).toEqual({ a: 1, b: { c: 2 } });
    } finally {
      delete prototype['planted'];
    }
  });

  it('accepts nothing JSON.parse refuses, duplicates or not', () => {
    const invalid = ['', ' ', '{', '{"a":1,}', '{"a" 1}', "{'a':1}", '[1,]', '{"a":1}}', '{"a":1,"a":}', '{"a":1,"a"', '"\\x"', 'NaN', '\ufeff{}', '{"a":1}{"a":2}', '01'];
    for (const text of invalid) {
      const parsed: UniqueKeyJsonParse = parseJsonWithUniqueKeys(text);
      expect(parsed.ok, text).toBe(false);
      if (!parsed.ok) expect(parsed.reason, text).toBe('invalid_json');
      if (!parsed.ok && parsed.reason === 'invalid_json') expect(parsed.cause).toBeInstanceOf(SyntaxError);
    }
  });

  it('handles nesting as deep as JSON.parse allows, without recursion', () => {
    const depth = 50_000;
    expect(accepted(`${'['.repeat(depth)}${']'.repeat(depth)}`)).toBeTruthy();
    expect(accepted(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)).toBeTruthy();
    expect(duplicateOf(`${'{"a":'.repeat(depth)}{"b":1,"b":2}${'}'.repeat(depth)}`)).toBe('b');
    expect(duplicateOf(`${'[{"a":0,"b":'.repeat(depth)}1${'}]'.repeat(depth - 1)},"a":2}]`)).toBe('a');
  });

  it('stays linear on 256 KiB inputs built to make a naive scan quadratic', () => {
    const size = 256 * 1024;
    const inputs = [
      `[${'"\\\\\\"",'.repeat(size / 8)}0]`, // runs of escaped backslashes before escaped quotes
      `["${'\\"'.repeat(size / 2)}"]`, // one long string of escaped quotes
      `{"k":[${'1,'.repeat(size / 2)}1],"k2":"${':'.repeat(size / 2)}"}`, // colons far from the quotes
      `[${'{"a":1},'.repeat(size / 8)}{"a":1,"a":2}]`, // many small objects, the repeat at the end
    ];
    const verdicts = inputs.map((text) => duplicateOf(text));
    expect(verdicts).toEqual([undefined, undefined, undefined, 'a']);
  });
});

describe('quoteJsonKey', () => {
  it('quotes short keys as JSON strings', () => {
    expect(quoteJsonKey('amount')).toBe('"amount"');
    expect(quoteJsonKey('a"b\\c\n\u0000')).toBe('"a\\"b\\\\c\\n\\u0000"');
    expect(quoteJsonKey('')).toBe('""');
  });

  it('cuts long keys to 64 code units without splitting a surrogate pair', () => {
    const long = quoteJsonKey('k'.repeat(100_000));
    expect(long).toBe(`"${'k'.repeat(64)}…"`);
    expect(quoteJsonKey(`${'k'.repeat(63)}😀tail`)).toBe(`"${'k'.repeat(63)}…"`);
    expect(quoteJsonKey(`${'k'.repeat(62)}😀tail`)).toBe(`"${'k'.repeat(62)}😀…"`);
    expect(quoteJsonKey('k'.repeat(64))).toBe(`"${'k'.repeat(64)}"`);
  });
});
