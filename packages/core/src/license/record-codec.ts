import * as v from 'valibot';
import { CborDecodeError, decodeCanonical, encodeCanonical, type CborValue, type DecodeLimits } from '../cbor';
import { ArtifactError } from './artifact-error';
import type { CborRecordSpec } from './cbor-record';

function invalid(spec: { readonly name: string }, issues: readonly { message: string }[], cause?: unknown): ArtifactError {
  const messages = issues.map((issue) => issue.message);
  return new ArtifactError('invalid_payload', `${spec.name} is invalid: ${messages.join('; ')}`, {
    details: { record: spec.name, issues: messages },
    cause,
  });
}

/**
 * Checks a decoded CBOR value against a record layout and returns the typed object.
 *
 * @param spec - The layout.
 * @param value - A value from `decodeCanonical`.
 * @returns The typed record.
 * @throws {@link ArtifactError} `invalid_payload` naming every broken field.
 */
export function parseRecord<T>(spec: CborRecordSpec<T>, value: CborValue): T {
  const result = v.safeParse(spec.schema, value);
  if (!result.success) throw invalid(spec, result.issues);
  return result.output;
}

/**
 * Encodes a typed record canonically, after checking it against the layout exactly as the decoder
 * will: nothing is ever signed or sent that our own decoder would refuse.
 *
 * @param spec - The layout.
 * @param value - The typed record.
 * @returns The canonical CBOR bytes.
 * @throws {@link ArtifactError} `invalid_payload` when the value breaks the layout.
 */
export function encodeRecord<T>(spec: CborRecordSpec<T>, value: T): Uint8Array {
  let map: Map<string | number | bigint, CborValue>;
  try {
    map = spec.toCbor(value);
    parseRecord(spec, map);
    return encodeCanonical(map);
  } catch (error) {
    if (error instanceof ArtifactError) throw error;
    throw invalid(spec, [{ message: error instanceof Error ? error.message : String(error) }], error);
  }
}

/**
 * Decodes canonical CBOR bytes, mapping every decoder refusal to `bad_encoding`.
 *
 * @param bytes - The encoded item.
 * @param what - Name for the message.
 * @param limits - Decoder limits.
 * @returns The decoded value.
 * @throws {@link ArtifactError} `bad_encoding`.
 */
export function decodeStrict(bytes: Uint8Array, what: string, limits?: Partial<DecodeLimits>): CborValue {
  try {
    return decodeCanonical(bytes, limits === undefined ? {} : { limits });
  } catch (error) {
    if (error instanceof CborDecodeError) {
      throw new ArtifactError('bad_encoding', `${what} is not canonical CBOR: ${error.message}`, {
        details: { part: what, cbor: error.reason, offset: error.details['offset'] },
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * Decodes and validates one record from bytes (strict canonical CBOR, then the layout).
 *
 * @param spec - The layout.
 * @param bytes - The encoded record.
 * @param limits - Decoder limits (client limits by default).
 * @returns The typed record.
 * @throws {@link ArtifactError} `bad_encoding` or `invalid_payload`.
 */
export function decodeRecord<T>(spec: CborRecordSpec<T>, bytes: Uint8Array, limits?: Partial<DecodeLimits>): T {
  if (!(bytes instanceof Uint8Array)) throw new ArtifactError('bad_encoding', `${spec.name} must be a byte string.`, { details: { part: spec.name } });
  return parseRecord(spec, decodeStrict(bytes, spec.name, limits));
}
