import type { SqlParam } from './sql-client';

const hexDigits = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** Postgres bytea hex input (`\x0aff`). */
function encodeBytea(bytes: Uint8Array): string {
  let hex = '\\x';
  for (const byte of bytes) hex += hexDigits[byte];
  return hex;
}

// Inside an array literal every element is double-quoted, so only `"` and `\` need escaping.
function quoteArrayElement(text: string): string {
  return `"${text.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

function encodeArray(values: readonly SqlParam[]): string {
  const elements = values.map((value) => {
    if (value === null || value === undefined) return 'NULL';
    if (Array.isArray(value)) return encodeArray(value as readonly SqlParam[]);
    return quoteArrayElement(encodeSqlParam(value) as string);
  });
  return `{${elements.join(',')}}`;
}

/**
 * Encodes one query parameter to the Postgres text input both drivers send (rules in `SqlParam`).
 * Drivers call it so that the same JS value means the same SQL value on PGlite and on a server.
 *
 * @param value - the JS value bound to a placeholder
 * @returns the text input, or `null` for SQL `NULL`
 * @throws TypeError for values with no SQL meaning (functions, symbols, invalid dates, values that
 *   `JSON.stringify` cannot encode)
 *
 * @example
 * ```ts
 * import { encodeSqlParam } from '@tollgate/core/storage';
 * encodeSqlParam(new Uint8Array([10, 255])); // '\\x0aff'
 * encodeSqlParam([1, null, 'a"b']);          // '{"1",NULL,"a\\"b"}'
 * ```
 */
export function encodeSqlParam(value: SqlParam): string | null {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      throw new TypeError(`A ${typeof value} cannot be bound as a SQL parameter.`);
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new TypeError('An invalid Date cannot be bound as a SQL parameter.');
    return value.toISOString();
  }
  if (value instanceof Uint8Array) return encodeBytea(value);
  if (Array.isArray(value)) return encodeArray(value as readonly SqlParam[]);
  const json: unknown = JSON.stringify(value);
  if (typeof json !== 'string') throw new TypeError('This object cannot be encoded as JSON for a SQL parameter.');
  return json;
}

/**
 * Encodes a parameter list with {@link encodeSqlParam}.
 *
 * @example
 * ```ts
 * import { encodeSqlParams } from '@tollgate/core/storage';
 * encodeSqlParams([1, true, null]); // ['1', 'true', null]
 * ```
 */
export function encodeSqlParams(params: readonly SqlParam[] | undefined): (string | null)[] {
  return params === undefined ? [] : params.map(encodeSqlParam);
}
