/**
 * The valibot building blocks every license record uses. Values arrive from the strict CBOR decoder, so
 * integers beyond 2^53 − 1 (decoded as `bigint`) fail `uint` on purpose: no protocol value needs them.
 *
 * @module
 */
import * as v from 'valibot';
import { utf8Encode } from '../crypto/utf8';
import { licenseProtocolVersion, productIdPattern } from './protocol';

/** A non-negative safe integer (times in unix seconds, counters, epochs, sequence numbers). */
export const uintSchema = v.pipe(v.number('expected an unsigned integer'), v.safeInteger('expected an unsigned integer'), v.minValue(0));

/** A positive safe integer. */
export const positiveUintSchema = v.pipe(uintSchema, v.minValue(1));

/** Key 0 of every record: the protocol version, always 1. */
export const protoVersionSchema = v.literal(licenseProtocolVersion, `expected proto_ver ${licenseProtocolVersion}`);

/** A product id (see `productIdPattern`). */
export const productIdSchema = v.pipe(v.string('expected a product id'), v.regex(productIdPattern, 'expected a product id'));

/**
 * A byte string of exactly `length` bytes.
 *
 * @param length - Required length.
 * @returns The schema.
 */
export function bytesSchema(length: number): v.GenericSchema<unknown, Uint8Array> {
  return v.pipe(v.instance(Uint8Array, 'expected a byte string'), v.length(length, `expected ${length} bytes`));
}

/**
 * A byte string of `min` to `max` bytes.
 *
 * @param min - Least length.
 * @param max - Greatest length.
 * @returns The schema.
 */
export function boundedBytesSchema(min: number, max: number): v.GenericSchema<unknown, Uint8Array> {
  return v.pipe(v.instance(Uint8Array, 'expected a byte string'), v.minLength(min), v.maxLength(max));
}

/**
 * A text string of at least `minLength` characters and at most `maxBytes` UTF-8 bytes.
 *
 * @param minLength - Least length in characters.
 * @param maxBytes - Greatest UTF-8 length.
 * @returns The schema.
 */
export function textSchema(minLength: number, maxBytes: number): v.GenericSchema<unknown, string> {
  return v.pipe(v.string('expected a text string'), v.minLength(minLength), v.maxBytes(maxBytes));
}

/**
 * Bytewise comparison (shorter first when one is a prefix of the other): the order of id lists.
 *
 * @param a - First byte string.
 * @param b - Second byte string.
 * @returns Negative, zero or positive.
 */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index += 1) {
    const difference = (a[index] as number) - (b[index] as number);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

/**
 * A list of fixed-length byte strings in strictly ascending bytewise order: sorted and free of
 * duplicates, so every set of ids has exactly one encoding.
 *
 * @param length - Length of each element.
 * @param maxItems - Most elements.
 * @returns The schema.
 */
export function sortedIdListSchema(length: number, maxItems: number): v.GenericSchema<unknown, Uint8Array[]> {
  return v.pipe(
    v.array(bytesSchema(length)),
    v.maxLength(maxItems),
    v.check((list) => list.every((id, index) => index === 0 || compareBytes(list[index - 1] as Uint8Array, id) < 0), 'ids must be strictly ascending'),
  );
}

/**
 * A list of text strings in strictly ascending order of their UTF-8 bytes: the order a decoder in any
 * language gets by comparing the CBOR text bytes (UTF-16 code unit order differs once a name holds
 * characters above U+FFFF).
 *
 * @param item - Schema of each element.
 * @param maxItems - Most elements.
 * @returns The schema.
 */
export function sortedTextListSchema(item: v.GenericSchema<unknown, string>, maxItems: number): v.GenericSchema<unknown, string[]> {
  return v.pipe(
    v.array(item),
    v.maxLength(maxItems),
    v.check((list) => list.every((text, index) => index === 0 || compareBytes(utf8Encode(list[index - 1] as string), utf8Encode(text)) < 0), 'names must be strictly ascending (by UTF-8 bytes)'),
  );
}

/**
 * One of the listed integer codes.
 *
 * @param codes - Allowed values.
 * @param what - Name for the message.
 * @returns The schema.
 */
export function codeSchema<const Code extends number>(codes: readonly Code[], what: string): v.GenericSchema<unknown, Code> {
  return v.picklist(codes, `expected a ${what} (${codes.join(', ')})`);
}
