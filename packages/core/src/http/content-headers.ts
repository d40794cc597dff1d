import { RequestError } from '../errors/request';
import type { BodySpec } from './types';

/**
 * A parsed `Content-Type`: the lower-case `type/subtype` and its parameters (names lower-case).
 *
 * @example
 * ```ts
 * import { parseMediaType, type MediaType } from '@tollgate/core/http';
 * const media: MediaType | undefined = parseMediaType('application/cbor');
 * ```
 */
export interface MediaType {
  type: string;
  parameters: Record<string, string>;
}

const token = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const mediaRange = new RegExp(`^(${token})/(${token})$`);
const parameter = new RegExp(`^(${token})=(${token}|"(?:[^"\\\\]|\\\\.)*")$`);

/**
 * Parses a `Content-Type` header value (RFC 9110 §8.3).
 *
 * @param value - The header value.
 * @returns The media type, or `undefined` when the value is not a valid media type.
 * @example
 * ```ts
 * import { parseMediaType } from '@tollgate/core/http';
 * parseMediaType('application/json; charset=UTF-8'); // { type: 'application/json', parameters: { charset: 'UTF-8' } }
 * ```
 */
export function parseMediaType(value: string): MediaType | undefined {
  const [essence = '', ...rest] = value.split(';');
  const match = mediaRange.exec(essence.trim());
  if (!match) return undefined;
  const parameters = Object.create(null) as Record<string, string>;
  for (const piece of rest) {
    const trimmed = piece.trim();
    if (trimmed === '') continue;
    const parsed = parameter.exec(trimmed);
    if (!parsed) return undefined;
    const raw = parsed[2] as string;
    parameters[(parsed[1] as string).toLowerCase()] = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
  }
  return { type: `${match[1]}/${match[2]}`.toLowerCase(), parameters };
}

const defaultContentTypes: Record<BodySpec['type'], readonly string[] | undefined> = {
  json: ['application/json'],
  cbor: ['application/cbor'],
  raw: undefined,
};

/**
 * Checks a request's `Content-Type` against a body spec: the media type must be one the spec accepts,
 * and a JSON body that names a charset must name UTF-8 (RFC 8259 §8.1 makes UTF-8 the only one).
 *
 * @param spec - The route's body spec.
 * @param header - The `Content-Type` header value.
 * @throws RequestError `unsupported_media_type` otherwise.
 */
export function assertContentType(spec: BodySpec, header: string): void {
  const accepted = spec.contentTypes ?? defaultContentTypes[spec.type];
  const parsed = parseMediaType(header);
  const expected = accepted ? accepted.join(' or ') : 'a valid media type';
  if (!parsed || (accepted && !accepted.includes(parsed.type))) {
    throw new RequestError('unsupported_media_type', `The body must be sent as ${expected}.`, {
      details: accepted ? { accepted: [...accepted] } : {},
    });
  }
  const charset = parsed.parameters['charset'];
  if (spec.type === 'json' && charset !== undefined && charset.toLowerCase() !== 'utf-8') {
    throw new RequestError('unsupported_media_type', 'A JSON body must be encoded as UTF-8.', {
      details: { accepted: [...(accepted ?? [])] },
    });
  }
}

/**
 * Reads `Content-Encoding`. `identity` means none and `x-gzip` is `gzip` (RFC 9110 §8.4.1.3). Stacked
 * encodings (`gzip, br`) are refused: no client of ours sends them, and each stage would need a cap.
 *
 * @param header - The header value, if any.
 * @returns The single encoding (lower-case), or `undefined` when the body is not encoded.
 * @throws RequestError `unsupported_media_type` for stacked or malformed encodings.
 */
export function parseContentEncoding(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .map((coding) => (coding === 'x-gzip' ? 'gzip' : coding));
  if (codings.length > 1) {
    throw new RequestError('unsupported_media_type', 'Only one content encoding may be applied to a body.');
  }
  return codings[0];
}

/**
 * Reads `Content-Length`.
 *
 * @param header - The header value, if any.
 * @returns The length, `undefined` when absent, or `Infinity` for a well-formed but absurd length.
 * @throws RequestError `malformed_request` when the value is not a decimal integer.
 */
export function parseContentLength(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  // Node joins repeated headers with ", "; identical repeats are harmless (RFC 9110 §8.6).
  const values = new Set(header.split(',').map((v) => v.trim()));
  const [value] = values;
  if (values.size !== 1 || value === undefined || !/^\d+$/.test(value)) {
    throw new RequestError('malformed_request', 'The Content-Length header is not a valid length.');
  }
  const length = Number(value);
  return Number.isSafeInteger(length) ? length : Infinity;
}
