import { decodeCanonical, CborDecodeError } from '../cbor';
import { RequestError } from '../errors/request';
import { parseJsonWithUniqueKeys, quoteJsonKey } from '../json';
import { assertContentType, parseContentEncoding, parseContentLength } from './content-headers';
import { corruptCompressedBody, type Decompressors } from './decompress';
import { readCapped, type BodySource } from './read-stream';
import type { BodySpec } from './types';

/** What {@link readRequestBody} needs besides the request. */
export interface BodyReadOptions {
  /** Decoders by `Content-Encoding` token. */
  readonly decompressors: Decompressors;
  /** Deadline for the whole body to arrive, in milliseconds. */
  readonly bodyTimeoutMs: number;
}

/** A parsed body and, when the spec keeps it, the decoded bytes it was parsed from. */
export interface ReadBody {
  body: unknown;
  rawBody?: Uint8Array;
}

/**
 * Reads, decompresses and parses a request body according to its route's spec. Cheap refusals come
 * before any byte is read: an unknown or stacked `Content-Encoding` and a wrong `Content-Type` (415), a
 * `Content-Length` over the wire cap (413). Then the body is read under the wire cap and the deadline,
 * decompressed under the decoded cap, and parsed.
 *
 * @param spec - The route's body spec.
 * @param headers - Lower-case request headers.
 * @param source - The body chunks, or `null`/`undefined` when the request has no body.
 * @param options - Decompressors and the body deadline.
 * @returns The parsed body (`undefined` for an accepted empty optional body).
 * @throws RequestError for every refusal; nothing else for any input.
 */
export async function readRequestBody(
  spec: BodySpec,
  headers: Readonly<Record<string, string>>,
  source: BodySource | null | undefined,
  options: BodyReadOptions,
): Promise<ReadBody> {
  const encoding = parseContentEncoding(headers['content-encoding']);
  const decompress = encoding === undefined ? undefined : lookupDecompressor(options.decompressors, encoding);
  const wireCap = encoding === undefined ? spec.maxBytes : (spec.maxCompressedBytes ?? spec.maxBytes);
  const declaredLength = parseContentLength(headers['content-length']);
  if (declaredLength !== undefined && declaredLength > wireCap) {
    throw new RequestError('payload_too_large', `The request body is larger than ${wireCap} bytes.`, { details: { maxBytes: wireCap } });
  }
  const contentType = headers['content-type'];
  if (contentType !== undefined) assertContentType(spec, contentType);

  const wire =
    source && declaredLength !== 0 ? await readCapped(source, { maxBytes: wireCap, timeoutMs: options.bodyTimeoutMs }) : new Uint8Array(0);
  if (wire.byteLength > 0 && contentType === undefined) assertContentType(spec, '');
  let decoded = wire;
  if (decompress && encoding !== undefined && wire.byteLength > 0) {
    try {
      decoded = await decompress(wire, spec.maxBytes);
    } catch (error) {
      throw error instanceof RequestError ? error : corruptCompressedBody(encoding, error);
    }
  }
  if (decoded.byteLength === 0) {
    if (spec.optional) return { body: undefined };
    throw new RequestError('malformed_body', 'This endpoint needs a request body.');
  }
  const body = parseBody(spec, decoded);
  return spec.keepRaw ? { body, rawBody: decoded } : { body };
}

function lookupDecompressor(decompressors: Decompressors, encoding: string) {
  // hasOwn, not `in`: a header such as `Content-Encoding: constructor` must not reach Object.prototype.
  if (Object.hasOwn(decompressors, encoding)) {
    const decompress = decompressors[encoding];
    if (typeof decompress === 'function') return decompress;
  }
  throw new RequestError('unsupported_media_type', 'This content encoding is not supported.', {
    details: { encoding: encoding.slice(0, 32), accepted: Object.keys(decompressors) },
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseBody(spec: BodySpec, bytes: Uint8Array): unknown {
  if (spec.type === 'raw') return bytes;
  if (spec.type === 'json') {
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch (cause) {
      throw new RequestError('malformed_body', 'The JSON body is not valid UTF-8.', { cause });
    }
    // A repeated key would let a proxy that keeps the first value and this parser (which would keep the
    // last) read two different requests: refuse it like malformed JSON.
    const parsed = parseJsonWithUniqueKeys(text);
    if (parsed.ok) return parsed.value;
    if (parsed.reason === 'invalid_json') throw new RequestError('malformed_body', 'The body is not valid JSON.', { cause: parsed.cause });
    throw new RequestError('malformed_body', `Duplicate key ${quoteJsonKey(parsed.key)} in JSON body.`);
  }
  try {
    // The route's cap is the input cap; the other structural limits keep the decoder's defaults.
    const limits = { maxInputBytes: spec.maxBytes, maxStringBytes: spec.maxBytes, ...spec.cborOptions?.limits };
    return decodeCanonical(bytes, { ...spec.cborOptions, limits });
  } catch (error) {
    const details = error instanceof CborDecodeError ? { ...error.details } : {};
    throw new RequestError('malformed_body', 'The body is not valid canonical CBOR.', { cause: error, details });
  }
}
