/** A parsed Postgres array: elements are the raw text (or `null`), nested arrays stay nested. */
export type PgArrayElements = (string | null | PgArrayElements)[];

/**
 * Parses the text output of a Postgres array (`{1,"a b",NULL,{2,3}}`) into nested JS arrays of element
 * text. Handles quoting, backslash escapes, unquoted `NULL`, and the `[lower:upper]=` dimension prefix
 * Postgres prints for arrays that do not start at index 1.
 *
 * @param text - the array output, for example `{1,2,NULL}`
 * @param delimiter - the element delimiter (`,` for every type except `box`)
 * @returns the elements, still as text
 * @throws TypeError when `text` is not a well-formed array literal
 *
 * @example
 * ```ts
 * import { parsePgArrayLiteral } from '@tollgate/core/storage';
 * parsePgArrayLiteral('{1,"a,b",NULL}'); // ['1', 'a,b', null]
 * ```
 */
export function parsePgArrayLiteral(text: string, delimiter = ','): PgArrayElements {
  let position = 0;
  if (text.startsWith('[')) {
    const equals = text.indexOf('=');
    if (equals < 0) throw new TypeError('Malformed array literal: dimension prefix without "=".');
    position = equals + 1;
  }

  const fail = (why: string): never => {
    throw new TypeError(`Malformed array literal at offset ${position}: ${why}.`);
  };

  const parseArray = (): PgArrayElements => {
    if (text[position] !== '{') fail('expected "{"');
    position += 1;
    const elements: PgArrayElements = [];
    if (text[position] === '}') {
      position += 1;
      return elements;
    }
    for (;;) {
      const char = text[position];
      if (char === '{') {
        elements.push(parseArray());
      } else if (char === '"') {
        position += 1;
        let value = '';
        for (;;) {
          const next = text[position];
          if (next === undefined) fail('unterminated quoted element');
          if (next === '\\') {
            value += text[position + 1] ?? '';
            position += 2;
          } else if (next === '"') {
            position += 1;
            break;
          } else {
            value += next;
            position += 1;
          }
        }
        elements.push(value);
      } else {
        const start = position;
        while (position < text.length && text[position] !== delimiter && text[position] !== '}') position += 1;
        const raw = text.slice(start, position).trim();
        if (raw === '') fail('empty element');
        elements.push(raw.toUpperCase() === 'NULL' ? null : raw);
      }
      const separator = text[position];
      position += 1;
      if (separator === '}') return elements;
      if (separator !== delimiter) fail(`expected "${delimiter}" or "}"`);
    }
  };

  const result = parseArray();
  if (position !== text.length) fail('trailing characters');
  return result;
}
