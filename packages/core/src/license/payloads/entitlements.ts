import * as v from 'valibot';
import { cborRecord, field, type CborRecordSpec } from '../cbor-record';
import { sortedTextListSchema, textSchema, uintSchema } from '../schemas';

/**
 * Feature and limit names are visible ASCII (0x21–0x7E), 1 to 128 characters. Restricting them to ASCII
 * makes "strictly ascending" mean the same thing in every language: for ASCII, JavaScript's UTF-16 code
 * unit order, UTF-8 byte order (Go, Rust, C) and code point order (Python) all agree, whereas for other
 * text they do not (U+FFFD sorts after U+1F600 in UTF-16 and before it in UTF-8). Catalog identifiers,
 * which entitlements are resolved from, are ASCII already.
 *
 * @example
 * ```ts
 * import { entitlementNamePattern } from '@tollgate/core/license';
 * entitlementNamePattern.test('export.pdf'); // true
 * entitlementNamePattern.test('exporté'); // false
 * ```
 */
export const entitlementNamePattern = /^[\x21-\x7e]{1,128}$/;

const featureNameSchema = v.pipe(textSchema(1, 128), v.regex(entitlementNamePattern, 'feature and limit names are visible ASCII (0x21–0x7E)'));

/**
 * What a license grants, as credentials and tickets carry it.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | features | array of text (visible ASCII, 1–128 characters), strictly ascending, at most 256 |
 * | 1 | limits | map text (same names) → int (−1 = unlimited), at most 64 entries |
 * | 2 | tier | text, 1–64 bytes |
 * | 3 | catalogVersion | uint |
 */
export interface Entitlements {
  features: string[];
  limits: Map<string, number>;
  tier: string;
  catalogVersion: number;
}

/** Layout of {@link Entitlements}. */
export const entitlementsSpec: CborRecordSpec<Entitlements> = cborRecord('Entitlements', {
  features: field(0, sortedTextListSchema(featureNameSchema, 256)),
  limits: field(1, v.pipe(v.map(featureNameSchema, v.pipe(v.number(), v.safeInteger(), v.minValue(-1))), v.maxSize(64))),
  tier: field(2, textSchema(1, 64)),
  catalogVersion: field(3, uintSchema),
});
