import * as v from 'valibot';
import { evmAddressSchema, networkFieldSchema } from '../../fields/schema-fields';

/** Largest `minConfirmations` accepted (a higher count is a client mistake, not a policy). */
export const maxMinConfirmations = 1_000_000;

/** Page size of `GET /txs`: 1 to 100; when omitted, the cursor's page size, else 50. */
export const txHistoryLimits = Object.freeze({ default: 50, max: 100 });

/**
 * Body of `POST /verify-receipt`. `receipt` must be present; its shape is the receipt check's business
 * (a malformed receipt is `receipt_invalid`, not `invalid_request`). Unknown fields are refused.
 *
 * @example
 * ```ts
 * import { parseGatewayInput, verifyReceiptRequestSchema } from '@tollgate/core/gateway';
 * const body = parseGatewayInput(verifyReceiptRequestSchema, request.body);
 * ```
 */
export const verifyReceiptRequestSchema = v.strictObject({
  signedReceipt: v.pipe(v.string('a signature string'), v.minLength(1, 'a signature string'), v.maxLength(1_024, 'a signature of at most 1024 characters')),
  receipt: v.unknown(),
  expectedPayTo: v.optional(evmAddressSchema),
  expectedAmount: v.optional(v.pipe(v.string('an atomic amount'), v.regex(/^(0|[1-9][0-9]{0,77})$/, 'an atomic amount (a decimal integer string)'))),
  minConfirmations: v.pipe(
    v.number('an integer number of confirmations'),
    v.safeInteger('an integer number of confirmations'),
    v.minValue(0, 'at least 0 confirmations'),
    v.maxValue(maxMinConfirmations, `at most ${maxMinConfirmations} confirmations`),
  ),
});

/** A verified `POST /verify-receipt` body. */
export type VerifyReceiptBody = v.InferOutput<typeof verifyReceiptRequestSchema>;

/**
 * Body of `POST /verify-refund-receipt`: the refund or rejected-refund receipt with its `signedReceipt`,
 * optionally the original payment's Tollgate receipt (`originalReceipt`), and `minConfirmations` (the reverse
 * transfer's; required as for `/verify-receipt`, unused for a rejected refund). The receipts' shapes are the
 * check's business (`receipt_invalid`); unknown fields are refused.
 *
 * @example
 * ```ts
 * import { parseGatewayInput, verifyRefundReceiptRequestSchema } from '@tollgate/core/gateway';
 * const body = parseGatewayInput(verifyRefundReceiptRequestSchema, request.body);
 * ```
 */
export const verifyRefundReceiptRequestSchema = v.strictObject({
  signedReceipt: verifyReceiptRequestSchema.entries.signedReceipt,
  receipt: v.unknown(),
  originalReceipt: v.optional(v.unknown()),
  minConfirmations: verifyReceiptRequestSchema.entries.minConfirmations,
});

/** A verified `POST /verify-refund-receipt` body. */
export type VerifyRefundReceiptBody = v.InferOutput<typeof verifyRefundReceiptRequestSchema>;

/**
 * A transaction hash as a path parameter: 32 bytes of `0x` hex (either case).
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { txHashSchema } from '@tollgate/core/gateway';
 * v.is(txHashSchema, '0x' + 'ab'.repeat(32)); // true
 * ```
 */
export const txHashSchema = v.pipe(v.string('a transaction hash'), v.regex(/^0x[0-9a-fA-F]{64}$/, 'a transaction hash (0x followed by 64 hex digits)'));

/** Query of `GET /tx/:txHash`: only the optional network name. */
export const txStatusQuerySchema = v.strictObject({ network: v.optional(networkFieldSchema) });

const decimalBlock = v.pipe(
  v.string('a block number'),
  v.regex(/^(0|[1-9][0-9]{0,15})$/, 'a non-negative block number'),
  v.transform(Number),
  v.safeInteger('a block number below 2^53'),
);

/**
 * Query of `GET /txs`: `pay_to`, `from` or `cursor` (at least one), `asset` (`USDC` only), `from_block`,
 * `limit` and `network`. Unknown keys are refused.
 *
 * @example
 * ```ts
 * import { parseGatewayInput, txHistoryQuerySchema } from '@tollgate/core/gateway';
 * const query = parseGatewayInput(txHistoryQuerySchema, request.query);
 * ```
 */
export const txHistoryQuerySchema = v.pipe(
  v.strictObject({
    pay_to: v.optional(evmAddressSchema),
    from: v.optional(evmAddressSchema),
    cursor: v.optional(v.pipe(v.string(), v.minLength(1, 'a cursor'), v.maxLength(2_048, 'a cursor'))),
    asset: v.optional(v.literal('USDC', 'USDC (the only asset)')),
    from_block: v.optional(decimalBlock),
    // No default here: without `limit`, a cursor's own page size applies (else the default).
    limit: v.optional(
      v.pipe(v.string('a page size'), v.regex(/^[1-9][0-9]{0,2}$/, `a page size from 1 to ${txHistoryLimits.max}`), v.transform(Number), v.maxValue(txHistoryLimits.max, `a page size from 1 to ${txHistoryLimits.max}`)),
    ),
    network: v.optional(networkFieldSchema),
  }),
  v.check((query) => query.pay_to !== undefined || query.from !== undefined || query.cursor !== undefined, 'pay_to, from or cursor (at least one)'),
);

/** A validated `GET /txs` query. */
export type TxHistoryQuery = v.InferOutput<typeof txHistoryQuerySchema>;
