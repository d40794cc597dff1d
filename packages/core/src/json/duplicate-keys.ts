/**
 * JSON with unique object keys. `JSON.parse` keeps the last of two equal keys, other parsers (proxies,
 * WAFs, loggers, other languages) keep the first or refuse: a body such as `{"amount":"5","amount":"6"}`
 * would mean two different things on either side of a proxy. Tollgate refuses such input wherever it
 * parses JSON from a client (RFC 8259 §4 leaves duplicate names undefined; RFC 7493 I-JSON forbids them).
 *
 * The check runs only after `JSON.parse` accepted the text, so the grammar is already proven and only
 * the object keys need tracking. It is linear in the text and iterative (no recursion), so nesting as deep
 * as `JSON.parse` allows cannot exhaust the stack.
 */

const quote = 0x22; // "
const backslash = 0x5c; // \
const comma = 0x2c; // ,
const openBrace = 0x7b; // {
const closeBrace = 0x7d; // }
const openBracket = 0x5b; // [
const closeBracket = 0x5d; // ]
const space = 0x20;
const tab = 0x09;
const lineFeed = 0x0a;
const carriageReturn = 0x0d;

/** Longest key excerpt, in UTF-16 code units, that an error message quotes. */
const maxQuotedKeyLength = 64;

/**
 * The outcome of {@link parseJsonWithUniqueKeys}: the parsed value, or why the text was refused.
 * `invalid_json` carries `JSON.parse`'s error as `cause`; `duplicate_key` the first key (in text order)
 * that an object repeats, unescaped (`"\u0061"` and `"a"` are both `a`).
 */
export type UniqueKeyJsonParse =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly reason: 'invalid_json'; readonly cause: unknown }
  | { readonly ok: false; readonly reason: 'duplicate_key'; readonly key: string };

/**
 * Parses JSON like `JSON.parse` (no reviver) and refuses a text in which any object, at any depth, names
 * the same key twice. Keys are compared after unescaping, exactly as `JSON.parse` would merge them,
 * `__proto__` included (`JSON.parse` stores it as an ordinary own key, so two of them are a duplicate and
 * one of them is kept as before). It accepts nothing `JSON.parse` refuses and refuses no valid JSON whose
 * objects have distinct keys.
 *
 * @param text - The JSON text.
 * @returns `{ ok: true, value }`, or `{ ok: false, reason }` with `cause` or `key`.
 *
 * @example
 * ```ts
 * import { parseJsonWithUniqueKeys, quoteJsonKey } from '@tollgate/core';
 * const parsed = parseJsonWithUniqueKeys('{"amount":"5","amount":"6"}');
 * if (!parsed.ok && parsed.reason === 'duplicate_key') console.log(`Duplicate key ${quoteJsonKey(parsed.key)}.`); // Duplicate key "amount".
 * ```
 */
export function parseJsonWithUniqueKeys(text: string): UniqueKeyJsonParse {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (cause) {
    return { ok: false, reason: 'invalid_json', cause };
  }
  if (typeof value !== 'object' || value === null) return { ok: true, value };
  // Cheap proof first: each duplicate merges two key tokens into one property, so when an upper bound on
  // the text's keys equals the parsed objects' key count, no object repeats a key. Otherwise (a
  // duplicate, or a string holding `":`) the exact scan decides alone.
  if (!hasInheritedEnumerableKeys() && keyCountUpperBound(text) === countParsedKeys(value)) return { ok: true, value };
  const key = firstDuplicateKey(text);
  return key === undefined ? { ok: true, value } : { ok: false, reason: 'duplicate_key', key };
}

/**
 * A key as an error message may quote it: JSON-quoted (control characters and quotes escaped) and cut to
 * 64 UTF-16 code units with `…`, so a huge or binary key is never echoed whole.
 *
 * @param key - The key, unescaped.
 * @returns The quoted excerpt, e.g. `"amount"`.
 *
 * @example
 * ```ts
 * import { quoteJsonKey } from '@tollgate/core';
 * quoteJsonKey('amount'); // '"amount"'
 * quoteJsonKey('x'.repeat(1000)).length; // 67
 * ```
 */
export function quoteJsonKey(key: string): string {
  if (key.length <= maxQuotedKeyLength) return JSON.stringify(key);
  // Do not split a surrogate pair: a lone half would print as an escape of half a character.
  const end = isHighSurrogate(key.charCodeAt(maxQuotedKeyLength - 1)) ? maxQuotedKeyLength - 1 : maxQuotedKeyLength;
  return `${JSON.stringify(key.slice(0, end)).slice(0, -1)}…"`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Index of the quote that closes the string opened at `open`. The text is valid JSON, so that quote
 * exists; a quote is escaped exactly when an odd run of backslashes precedes it. Each backslash run is
 * walked once, so the search stays linear.
 */
function closingQuote(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const candidate = text.indexOf('"', from);
    let before = candidate - 1;
    while (text.charCodeAt(before) === backslash) before -= 1;
    if ((candidate - 1 - before) % 2 === 0) return candidate;
    from = candidate + 1;
  }
}

/**
 * An upper bound on the number of keys in valid JSON text: the colons whose nearest non-whitespace
 * character before them is a quote. Every key is a string followed by optional whitespace and a colon,
 * so each key has its own such colon; a colon inside a string counts only when a quote precedes it
 * (`"a\":b"`), which costs the exact scan, never a wrong verdict. Native `indexOf` jumps from colon to
 * colon, which is what keeps the common case cheap (see bench/json-duplicate-keys.bench.ts).
 */
function keyCountUpperBound(text: string): number {
  let count = 0;
  for (let colon = text.indexOf(':'); colon !== -1; colon = text.indexOf(':', colon + 1)) {
    let before = colon - 1;
    let code = text.charCodeAt(before);
    while (code === space || code === tab || code === lineFeed || code === carriageReturn) code = text.charCodeAt((before -= 1));
    if (code === quote) count += 1;
  }
  return count;
}

/**
 * Number of keys of every object in a `JSON.parse` result, walked with an explicit stack. `JSON.parse`
 * defines each key as an enumerable own property (`__proto__` included) of an object whose prototype is
 * `Object.prototype`, so `for…in` sees exactly the own keys unless {@link hasInheritedEnumerableKeys}.
 */
function countParsedKeys(value: unknown): number {
  let count = 0;
  const pending: object[] = [value as object];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (Array.isArray(next)) {
      for (let index = 0; index < next.length; index += 1) {
        const item: unknown = next[index];
        if (typeof item === 'object' && item !== null) pending.push(item);
      }
      continue;
    }
    for (const key in next) {
      count += 1;
      const child = (next as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) pending.push(child);
    }
  }
  return count;
}

/**
 * Whether `Object.prototype` carries an enumerable key (a polluted prototype), which `for…in` would count
 * on every object: then the count proves nothing and the exact scan decides alone.
 */
function hasInheritedEnumerableKeys(): boolean {
  let found = false;
  for (const _key in Object.prototype) {
    found = true;
    break;
  }
  return found;
}

/**
 * The first key, in text order, that its object already holds, or `undefined`. The text must be valid
 * JSON. One set of keys per open object, on an explicit stack (`null` for an array).
 */
function firstDuplicateKey(text: string): string | undefined {
  const enclosing: (Set<string> | null)[] = [];
  let keys: Set<string> | null = null;
  let expectingKey = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === quote) {
      const close = closingQuote(text, index);
      if (expectingKey && keys !== null) {
        const raw = text.slice(index + 1, close);
        // JSON.parse of the string token unescapes exactly as it did for the object itself.
        const key = raw.includes('\\') ? (JSON.parse(text.slice(index, close + 1)) as string) : raw;
        if (keys.has(key)) return key;
        keys.add(key);
        expectingKey = false;
      }
      index = close;
    } else if (code === openBrace) {
      enclosing.push(keys);
      keys = new Set();
      expectingKey = true;
    } else if (code === openBracket) {
      enclosing.push(keys);
      keys = null;
      expectingKey = false;
    } else if (code === closeBrace || code === closeBracket) {
      keys = enclosing.pop() ?? null;
      expectingKey = false;
    } else if (code === comma) {
      expectingKey = keys !== null;
    }
  }
  return undefined;
}
