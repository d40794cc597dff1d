import * as v from 'valibot';
import { evmAddressSchema, networkFieldSchema, publicHttpsUrlSchema, utf8TextSchema } from '../../fields/schema-fields';
import { parseAtomicAmount } from './amount';

/** Longest ref label, in UTF-8 bytes. */
export const maxRefLabelBytes = 120;
/** Longest ref description, in UTF-8 bytes. */
export const maxRefDescriptionBytes = 512;
/** Lifetime of a ref created without `expiresInSecs`: 7 days. */
export const defaultRefLifetimeSeconds = 7 * 24 * 60 * 60;
/** Longest ref lifetime: 365 days. */
export const maxRefLifetimeSeconds = 365 * 24 * 60 * 60;
/** An invoice id: 1–64 characters of `A-Z a-z 0-9 . _ : -` (it is public: it appears in the snapshot). */
export const invoiceIdPattern = /^[A-Za-z0-9._:-]{1,64}$/;
/** Default and largest page size of `GET /ref`. */
export const refListLimits = { default: 50, max: 100 } as const;

/**
 * An `expiresInSecs` field: a positive safe integer of seconds, at most `maxSeconds` (a whole number of days).
 *
 * @param maxSeconds - The longest lifetime.
 * @returns The schema.
 * @example
 * ```ts
 * const expiresInSecs = v.optional(lifetimeSecondsSchema(30 * 24 * 60 * 60)); // "at most 2592000 seconds (30 days)"
 * ```
 */
export function lifetimeSecondsSchema(maxSeconds: number) {
  return v.pipe(
    v.number('a positive integer number of seconds'),
    v.safeInteger('a positive safe integer'),
    v.minValue(1, 'a positive integer number of seconds'),
    v.maxValue(maxSeconds, `at most ${maxSeconds} seconds (${maxSeconds / 86_400} days)`),
  );
}

/**
 * Body of `POST /ref` (the spec's "ref creation options"). Unknown fields are refused: a misspelt
 * `amount` must not silently create an open ref.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { createRefRequestSchema } from '@tollgate/core/gateway';
 * const options = v.parse(createRefRequestSchema, { payTo, network: 'base', amount: '10000', invoiceId: 'INV-1' });
 * ```
 */
export const createRefRequestSchema = v.pipe(
  v.strictObject({
    payTo: evmAddressSchema,
    network: networkFieldSchema,
    asset: v.optional(v.literal('USDC', 'only USDC'), 'USDC'),
    amount: v.optional(
      v.pipe(
        v.string('a positive atomic amount as a decimal string'),
        v.check(
          (value) => parseAtomicAmount(value) !== undefined,
          'a positive atomic amount: decimal digits without sign, exponent, fraction or leading zero, below 2^256',
        ),
      ),
    ),
    invoiceId: v.optional(v.pipe(v.string('an invoice id'), v.regex(invoiceIdPattern, 'an invoice id: 1-64 characters of A-Z a-z 0-9 . _ : -'))),
    label: v.optional(utf8TextSchema(maxRefLabelBytes)),
    description: v.optional(utf8TextSchema(maxRefDescriptionBytes, { multiline: true })),
    expiresInSecs: v.optional(lifetimeSecondsSchema(maxRefLifetimeSeconds)),
    notifyUrl: v.optional(publicHttpsUrlSchema),
  }),
  v.forward(
    v.partialCheck(
      [['invoiceId'], ['amount']],
      (input) => input.invoiceId === undefined || input.amount !== undefined,
      'invoiceId requires a fixed amount',
    ),
    ['invoiceId'],
  ),
);

/** Validated body of `POST /ref`. */
export type CreateRefRequest = v.InferOutput<typeof createRefRequestSchema>;

/**
 * The `limit` and `cursor` of a newest-first list's query (`GET /ref`, `GET /order`): `limit` a decimal
 * integer from 1 to `limits.max` (`limits.default` when absent), `cursor` the previous page's `nextCursor`.
 *
 * @param limits - The list's default and largest page size.
 * @returns Schema entries to spread into the query's object schema.
 * @example
 * ```ts
 * const listOrdersQuerySchema = v.strictObject({ status: v.optional(statusSchema), ...listPageQueryEntries({ default: 50, max: 100 }) });
 * ```
 */
export function listPageQueryEntries(limits: { readonly default: number; readonly max: number }) {
  return {
    limit: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^[1-9][0-9]{0,2}$/, `an integer from 1 to ${limits.max}`),
        v.transform(Number),
        v.maxValue(limits.max, `an integer from 1 to ${limits.max}`),
      ),
      String(limits.default),
    ),
    cursor: v.optional(v.pipe(v.string(), v.minLength(1, 'a cursor from nextCursor'), v.maxLength(1024, 'a cursor from nextCursor'))),
  };
}

/**
 * Query of `GET /ref`: `pay_to` (required), `limit` (1–100, default 50), `cursor` (opaque).
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { listRefsQuerySchema } from '@tollgate/core/gateway';
 * const query = v.parse(listRefsQuerySchema, { pay_to: payTo, limit: '20' }); // limit: 20
 * ```
 */
export const listRefsQuerySchema = v.object({
  pay_to: evmAddressSchema,
  ...listPageQueryEntries(refListLimits),
});

/** Validated query of `GET /ref`. */
export type ListRefsRequest = v.InferOutput<typeof listRefsQuerySchema>;
