import { hexEncode } from '@tollgate/core';
import type { CborValue } from '@tollgate/core/cbor';

/**
 * Renders a decoded canonical CBOR value in RFC 8949 §8 diagnostic notation (`{0: 1, 1: h'00ff'}`),
 * so readers of the vector file and other implementations can see the value behind each encoding.
 * Covers the subset the license protocol uses: integers, byte and text strings, arrays, maps, booleans
 * and null.
 *
 * @param value - A value from `decodeCanonical`.
 * @returns The diagnostic text.
 */
export function cborDiagnostic(value: CborValue): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  if (value instanceof Uint8Array) return `h'${hexEncode(value)}'`;
  if (Array.isArray(value)) return `[${value.map(cborDiagnostic).join(', ')}]`;
  if (value instanceof Map) return `{${[...value].map(([key, item]) => `${cborDiagnostic(key)}: ${cborDiagnostic(item)}`).join(', ')}}`;
  throw new TypeError('value outside the license CBOR subset');
}
