import * as v from 'valibot';
import { cborRecord, field, type CborRecordSpec } from '../cbor-record';
import { sortedTextListSchema, textSchema, uintSchema } from '../schemas';

const featureNameSchema = textSchema(1, 128);

/**
 * What a license grants, as credentials and tickets carry it.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | features | array of text (1–128 bytes), strictly ascending, at most 256 |
 * | 1 | limits | map text → int (−1 = unlimited), at most 64 entries |
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
