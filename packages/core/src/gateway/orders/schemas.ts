import * as v from 'valibot';
import { utf8TextSchema } from '../../fields/schema-fields';
import { createRefRequestSchema, lifetimeSecondsSchema, listPageQueryEntries, refListLimits } from '../refs/schemas';

/** Lifetime of a refund intent created without `expiresInSecs`: 7 days. */
export const defaultRefundLifetimeSeconds = 7 * 24 * 60 * 60;
/** Longest refund intent lifetime: 30 days (the reservation blocks other refunds while it is open). */
export const maxRefundLifetimeSeconds = 30 * 24 * 60 * 60;
/** Longest refund or rejection reason, in UTF-8 bytes (the rules of a ref description). */
export const maxRefundReasonBytes = 512;
/**
 * Bounds of an order's `metadata`: a flat JSON object of string values, kept as sent and answered on
 * every read. Keys start with a letter and use `A-Z a-z 0-9 _ . : -`; values are text without control
 * or invisible formatting characters (newlines allowed).
 */
export const orderMetadataLimits = { maxKeys: 20, maxKeyChars: 40, maxValueBytes: 500, maxJsonBytes: 4096 } as const;
/** An order metadata key: a letter, then up to 39 of `A-Z a-z 0-9 _ . : -`. */
export const orderMetadataKeyPattern = /^[A-Za-z][A-Za-z0-9_.:-]{0,39}$/;
/** Default and largest page size of `GET /order` (those of `GET /ref`). */
export const orderListLimits = refListLimits;
/** The statuses `GET /order?status=` filters on. */
export const orderStatuses = ['unpaid', 'paid', 'partially_refunded', 'refunded', 'cancelled', 'expired'] as const;

const orderIdPattern = /^ord_[0-9a-f]{32}$/;
const refundIdPattern = /^rfd_[0-9a-f]{32}$/;

/**
 * Whether `value` is an order id (`ord_` + 32 lowercase hex digits).
 *
 * @param value - Anything, typically a path parameter.
 * @returns True for a well-formed order id.
 * @example
 * ```ts
 * import { isOrderId } from '@tollgate/core/gateway';
 * isOrderId('ord_00112233445566778899aabbccddeeff'); // true
 * ```
 */
export function isOrderId(value: unknown): value is string {
  return typeof value === 'string' && orderIdPattern.test(value);
}

/**
 * Whether `value` is a refund intent id (`rfd_` + 32 lowercase hex digits).
 *
 * @param value - Anything, typically a path parameter.
 * @returns True for a well-formed refund id.
 * @example
 * ```ts
 * import { isRefundId } from '@tollgate/core/gateway';
 * isRefundId('rfd_00112233445566778899aabbccddeeff'); // true
 * ```
 */
export function isRefundId(value: unknown): value is string {
  return typeof value === 'string' && refundIdPattern.test(value);
}

const metadataValueSchema = utf8TextSchema(orderMetadataLimits.maxValueBytes, { multiline: true });

/**
 * An order's `metadata`: a flat JSON object (no arrays, no nested objects) of at most 20 keys (see
 * {@link orderMetadataKeyPattern}) whose values are strings of at most 500 UTF-8 bytes, at most 4 KiB
 * as JSON. Output: a fresh plain object with the keys in the order sent.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { orderMetadataSchema } from '@tollgate/core/gateway';
 * v.parse(orderMetadataSchema, { customerId: 'cus_42', plan: 'pro' });
 * ```
 */
export const orderMetadataSchema = v.pipe(
  v.custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'a flat JSON object of string values'),
  v.check((value) => Object.keys(value).length <= orderMetadataLimits.maxKeys, `at most ${orderMetadataLimits.maxKeys} keys`),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    for (const [key, value] of Object.entries(dataset.value)) {
      if (!orderMetadataKeyPattern.test(key)) {
        addIssue({ message: `keys of 1-${orderMetadataLimits.maxKeyChars} characters: a letter, then A-Z a-z 0-9 _ . : - (got ${JSON.stringify(key.slice(0, 60))})` });
        return;
      }
      const checked = v.safeParse(metadataValueSchema, value);
      if (!checked.success) {
        addIssue({ message: `string values of at most ${orderMetadataLimits.maxValueBytes} UTF-8 bytes (${key}: ${checked.issues[0]?.message ?? 'invalid'})` });
        return;
      }
    }
  }),
  v.transform((value) => Object.fromEntries(Object.entries(value)) as Record<string, string>),
  v.check((value) => new TextEncoder().encode(JSON.stringify(value)).length <= orderMetadataLimits.maxJsonBytes, `at most ${orderMetadataLimits.maxJsonBytes} bytes as JSON`),
);

// The ref creation fields, so an order's ref takes exactly what POST /ref takes.
const refFields = createRefRequestSchema.pipe[0].entries;

/**
 * Body of `POST /order`: the fields of a fixed-amount `POST /ref` (`amount` required), plus
 * `description` for the order and `metadata` ({@link orderMetadataSchema}). Unknown fields are refused.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { createOrderRequestSchema } from '@tollgate/core/gateway';
 * const order = v.parse(createOrderRequestSchema, { payTo, network: 'base', amount: '2500000', invoiceId: 'INV-7', metadata: { plan: 'pro' } });
 * ```
 */
export const createOrderRequestSchema = v.strictObject({
  ...refFields,
  amount: refFields.amount.wrapped,
  metadata: v.optional(orderMetadataSchema),
});

/** Validated body of `POST /order`. */
export type CreateOrderRequest = v.InferOutput<typeof createOrderRequestSchema>;

/**
 * Query of `GET /order`: `status` (one of {@link orderStatuses}), `limit` (1–100, default 50), `cursor`.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { listOrdersQuerySchema } from '@tollgate/core/gateway';
 * v.parse(listOrdersQuerySchema, { status: 'paid', limit: '20' }); // { status: 'paid', limit: 20 }
 * ```
 */
export const listOrdersQuerySchema = v.strictObject({
  status: v.optional(v.picklist(orderStatuses, `one of ${orderStatuses.join(', ')}`)),
  ...listPageQueryEntries(orderListLimits),
});

/** Validated query of `GET /order`. */
export type ListOrdersRequest = v.InferOutput<typeof listOrdersQuerySchema>;

const reasonSchema = utf8TextSchema(maxRefundReasonBytes, { multiline: true });

/**
 * Body of `POST /order/:orderId/refund`: `amount` (positive atomic units, at most what is left to
 * refund), `reason` (≤ 512 UTF-8 bytes, description rules), `expiresInSecs` (default 7 days, at most 30).
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { createRefundRequestSchema } from '@tollgate/core/gateway';
 * v.parse(createRefundRequestSchema, { amount: '500000', reason: 'Damaged item' });
 * ```
 */
export const createRefundRequestSchema = v.strictObject({
  amount: refFields.amount.wrapped,
  reason: v.optional(reasonSchema),
  expiresInSecs: v.optional(lifetimeSecondsSchema(maxRefundLifetimeSeconds)),
});

/** Validated body of `POST /order/:orderId/refund`. */
export type CreateRefundRequest = v.InferOutput<typeof createRefundRequestSchema>;

/**
 * Body of `POST /order/:orderId/refund/:refundId/reject`: an optional `reason`. The body itself may be
 * empty.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { rejectRefundRequestSchema } from '@tollgate/core/gateway';
 * v.parse(rejectRefundRequestSchema, { reason: 'Refund issued by bank transfer' });
 * ```
 */
export const rejectRefundRequestSchema = v.optional(v.strictObject({ reason: v.optional(reasonSchema) }), {});

/** Validated body of the reject route. */
export type RejectRefundRequest = v.InferOutput<typeof rejectRefundRequestSchema>;

/**
 * Body of `POST /refund-receipt/rejected`: a receipt this gateway signed (`receipt` as issued, with its
 * `signedReceipt`) and an optional `reason`. The receipt is checked by the service, not here.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { statelessRejectionRequestSchema } from '@tollgate/core/gateway';
 * v.parse(statelessRejectionRequestSchema, { receipt, signedReceipt, reason: 'Chargeback' });
 * ```
 */
export const statelessRejectionRequestSchema = v.strictObject({
  receipt: v.custom<Record<string, unknown>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), 'the receipt object as issued'),
  signedReceipt: v.pipe(v.string('the signedReceipt string as issued'), v.regex(/^0x[0-9a-fA-F]{130}$/, 'a 65-byte signature as 0x hex')),
  reason: v.optional(reasonSchema),
});

/** Validated body of `POST /refund-receipt/rejected`. */
export type StatelessRejectionRequest = v.InferOutput<typeof statelessRejectionRequestSchema>;
