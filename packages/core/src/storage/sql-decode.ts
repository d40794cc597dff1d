import { parsePgArrayLiteral, type PgArrayElements } from './array-literal';

/** Decodes the text output of one Postgres type. */
type ValueDecoder = (text: string) => unknown;

// Largest and smallest instants a JS Date can hold: what Postgres `infinity` maps to.
const maxDateMs = 8.64e15;

const timestamptzPattern =
  /^(\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?|Z)?( BC)?$/;

/**
 * Parses Postgres `timestamptz` output in the ISO DateStyle (`2026-01-02 03:04:05.678+00`, any
 * offset, ` BC` years, `infinity`). Sub-millisecond digits are truncated: a `Date` holds milliseconds.
 *
 * @throws TypeError when the text is not an ISO timestamp
 *
 * @example
 * ```ts
 * import { parseTimestamptz } from '@tollgate/core/storage';
 * parseTimestamptz('2026-01-01 05:30:00+05:30').toISOString(); // '2026-01-01T00:00:00.000Z'
 * ```
 */
export function parseTimestamptz(text: string): Date {
  if (text === 'infinity') return new Date(maxDateMs);
  if (text === '-infinity') return new Date(-maxDateMs);
  const match = timestamptzPattern.exec(text);
  if (match === null) throw new TypeError(`Unexpected timestamptz output "${text}" (is DateStyle ISO?).`);
  const [, year, month, day, hour, minute, second, fraction, sign, offsetHours, offsetMinutes, offsetSeconds, bc] = match;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  const fullYear = bc === undefined ? Number(year) : 1 - Number(year);
  date.setUTCFullYear(fullYear, Number(month) - 1, Number(day));
  const millis = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'));
  date.setUTCHours(Number(hour), Number(minute), Number(second), millis);
  const offsetMs =
    ((Number(offsetHours ?? 0) * 60 + Number(offsetMinutes ?? 0)) * 60 + Number(offsetSeconds ?? 0)) * 1000;
  return new Date(date.getTime() - (sign === '-' ? -offsetMs : offsetMs));
}

/**
 * Parses Postgres `bytea` output: the hex format (`\x0aff`, the default) or the legacy escape format.
 *
 * @throws TypeError on malformed hex
 *
 * @example
 * ```ts
 * import { parseBytea } from '@tollgate/core/storage';
 * parseBytea('\\x0aff'); // Uint8Array [10, 255]
 * ```
 */
export function parseBytea(text: string): Uint8Array {
  if (text.startsWith('\\x')) {
    const hex = text.slice(2);
    if (hex.length % 2 !== 0 || /[^0-9a-fA-F]/.test(hex)) throw new TypeError('Malformed bytea hex output.');
    const bytes = new Uint8Array(hex.length / 2);
    for (let index = 0; index < bytes.length; index += 1) {
      bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16);
    }
    return bytes;
  }
  const bytes: number[] = [];
  for (let index = 0; index < text.length; ) {
    if (text[index] === '\\' && text[index + 1] === '\\') {
      bytes.push(0x5c);
      index += 2;
    } else if (text[index] === '\\') {
      bytes.push(Number.parseInt(text.slice(index + 1, index + 4), 8));
      index += 4;
    } else {
      bytes.push(text.charCodeAt(index));
      index += 1;
    }
  }
  return Uint8Array.from(bytes);
}

const asString: ValueDecoder = (text) => text;
const asNumber: ValueDecoder = (text) => Number(text);
const asBoolean: ValueDecoder = (text) => text === 't' || text === 'true';
const asJson: ValueDecoder = (text) => JSON.parse(text) as unknown;

// Scalar type OIDs (pg_type.oid, stable across Postgres versions) and how they decode.
const scalarDecoders = new Map<number, ValueDecoder>([
  [16, asBoolean], // bool
  [17, parseBytea], // bytea
  [18, asString], // "char"
  [19, asString], // name
  [20, asString], // int8: exact, as text
  [21, asNumber], // int2
  [23, asNumber], // int4
  [25, asString], // text
  [26, asNumber], // oid
  [114, asJson], // json
  [700, asNumber], // float4
  [701, asNumber], // float8
  [1042, asString], // bpchar
  [1043, asString], // varchar
  [1184, parseTimestamptz], // timestamptz
  [1700, asString], // numeric: exact, as text
  [2950, asString], // uuid
  [3802, asJson], // jsonb
]);

// Array type OID → element type OID, for the element types above.
const arrayElementTypes = new Map<number, number>([
  [1000, 16],
  [1001, 17],
  [1002, 18],
  [1003, 19],
  [1016, 20],
  [1005, 21],
  [1007, 23],
  [1009, 25],
  [1028, 26],
  [199, 114],
  [1021, 700],
  [1022, 701],
  [1014, 1042],
  [1015, 1043],
  [1185, 1184],
  [1231, 1700],
  [2951, 2950],
  [3807, 3802],
]);

function decodeElements(elements: PgArrayElements, decode: ValueDecoder): unknown[] {
  return elements.map((element) =>
    element === null ? null : Array.isArray(element) ? decodeElements(element, decode) : decode(element),
  );
}

/**
 * The type OIDs with a decoding other than "the Postgres text": drivers use it to route exactly these
 * types through {@link decodeSqlValue}.
 */
export const decodedTypeOids: readonly number[] = [...scalarDecoders.keys(), ...arrayElementTypes.keys()];

/**
 * Decodes one column value from its Postgres text output, following the mapping documented on
 * `SqlClient`. Both drivers hand every value to this function, which is what makes their results
 * identical.
 *
 * @param text - the value as Postgres prints it, or `null` for SQL `NULL`
 * @param typeOid - the column's type OID (`pg_type.oid`)
 * @returns the decoded JS value; the text itself for types without a dedicated decoding
 *
 * @example
 * ```ts
 * import { decodeSqlValue } from '@tollgate/core/storage';
 * decodeSqlValue('9007199254740993', 20);      // '9007199254740993' (int8 stays exact)
 * decodeSqlValue('{1,NULL}', 1007);            // [1, null]
 * decodeSqlValue('2026-01-01 00:00:00+00', 1184); // Date
 * ```
 */
export function decodeSqlValue(text: string | null, typeOid: number): unknown {
  if (text === null) return null;
  const scalar = scalarDecoders.get(typeOid);
  if (scalar !== undefined) return scalar(text);
  const elementType = arrayElementTypes.get(typeOid);
  if (elementType !== undefined) {
    return decodeElements(parsePgArrayLiteral(text), scalarDecoders.get(elementType) ?? asString);
  }
  return text;
}
