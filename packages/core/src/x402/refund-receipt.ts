import * as v from 'valibot';
import type { Address, Hex } from 'viem';
import { utf8Encode } from '../crypto/utf8';
import type { EvmSigner } from './evm-signature';
import { checkNetwork, checksum, type GatewayNetwork } from './network';
import { blockNumberText, canonicalReceiptHash, lowerHash32, receiptHash, signReceiptHash, signedReceiptDigest, type PaymentReceipt } from './receipt';
import { addressSchema, issuePath, networkSchema, uintStringSchema, type Network } from './wire';

/**
 * Receipts of order mode's refunds, signed exactly like payment receipts: `signedReceipt` is the gateway
 * key's EIP-712 signature of `TollgateReceipt(bytes32 receiptHash)` under `{ name: 'Tollgate Receipt',
 * version: '1' }`, over the JCS sha256 of the receipt. The receipt's `type` is inside the hashed JSON,
 * so one signature cannot pass for another kind of receipt: a verifier reads `type` first.
 *
 * - `x402.refund.receipt`: a refund was paid (the merchant's payTo paid the original payer back).
 * - `x402.refund.rejected`: the merchant refused a refund of the original receipt (no transfer).
 *
 * Reading one received from elsewhere (parse by `type`, recover the signer): `./refund-receipt-verify`.
 *
 * @module
 */

/** `type` of a paid refund's receipt. */
export const REFUND_RECEIPT_TYPE = 'x402.refund.receipt';
/** `type` of a rejected refund's receipt. */
export const REJECTED_REFUND_RECEIPT_TYPE = 'x402.refund.rejected';

const HASH32 = /^0x[0-9a-fA-F]{64}$/;
/** `sha256:` + the original receipt's {@link receiptHash} (64 lowercase hex digits). */
export const REFUND_OF_PATTERN = /^sha256:[0-9a-f]{64}$/;
const refundOfSchema = v.pipe(v.string(), v.regex(REFUND_OF_PATTERN, 'sha256:<64 lowercase hex digits>'));
const idSchema = (prefix: string) => v.pipe(v.string(), v.regex(new RegExp(`^${prefix}_[0-9a-f]{32}$`), `${prefix}_ + 32 lowercase hex digits`));
const unixSecondsSchema = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const textSchema = v.pipe(v.string(), v.minLength(1));
/** At most 512 UTF-8 bytes, like a ref's description. */
const reasonSchema = v.pipe(v.string(), v.minLength(1), v.check((value) => utf8Encode(value).length <= 512, 'at most 512 UTF-8 bytes'));

/**
 * The receipt of a paid refund: the original payment's payTo (`from`) paid its payer (`to`) back with an
 * EIP-3009 transfer, settled through the refund intent's refund ref. `refundOf` binds it to the original
 * payment's receipt. Spelled like a {@link PaymentReceipt}: checksummed addresses, lowercase hex, decimal
 * strings for numbers that can exceed 2^53.
 */
export interface RefundReceipt {
  type: typeof REFUND_RECEIPT_TYPE;
  version: 1;
  /** The refund intent (`rfd_…`). */
  refundId: string;
  /** The order it refunds (`ord_…`). */
  orderId: string;
  /** The refund ref the transfer was settled through. */
  refId: string;
  /** The refund payment's id (its payment-identifier, or the gateway's). */
  paymentId: string;
  /** `sha256:<receiptHash>` of the original payment's receipt. */
  refundOf: string;
  gatewayOrigin: string;
  /** CAIP-2. */
  network: Network;
  chainId: number;
  asset: Address;
  /** Who paid the refund: the original payment's payTo. */
  from: Address;
  /** Who received it: the original payment's payer. */
  to: Address;
  /** Atomic units, decimal string. */
  amount: string;
  /** The EIP-3009 nonce of the refund transfer (with `from`, it names it in `AuthorizationUsed`). */
  authorizationNonce: Hex;
  txHash: Hex;
  blockNumber?: string;
  /** Unix seconds. */
  issuedAt: number;
}

/**
 * The receipt of a rejected refund: the merchant refused to refund the original receipt. The stateful one
 * (`POST /order/:orderId/refund/:refundId/reject`) names its intent and order; the stateless one
 * (`POST /refund-receipt/rejected`) names only the original receipt.
 */
export interface RejectedRefundReceipt {
  type: typeof REJECTED_REFUND_RECEIPT_TYPE;
  version: 1;
  /** `sha256:<receiptHash>` of the original payment's receipt. */
  refundOf: string;
  refundId?: string;
  orderId?: string;
  /** The original payment's payer (who asked for the refund) and payTo (who refused it). */
  originalPayer: Address;
  originalPayTo: Address;
  /** The refund amount that was asked for, when known. */
  amount?: string;
  reason?: string;
  gatewayOrigin: string;
  network: Network;
  chainId: number;
  asset: Address;
  issuedAt: number;
}

/** Either refund receipt. */
export type AnyRefundReceipt = RefundReceipt | RejectedRefundReceipt;

const networkFields = { gatewayOrigin: textSchema, network: networkSchema, chainId: v.pipe(v.number(), v.safeInteger(), v.minValue(1)), asset: addressSchema };

/** Schema of a {@link RefundReceipt} received from elsewhere (unknown keys are kept: the hash covers them). */
export const refundReceiptSchema = v.looseObject({
  type: v.literal(REFUND_RECEIPT_TYPE),
  version: v.literal(1),
  refundId: idSchema('rfd'),
  orderId: idSchema('ord'),
  refId: textSchema,
  paymentId: textSchema,
  refundOf: refundOfSchema,
  ...networkFields,
  from: addressSchema,
  to: addressSchema,
  amount: uintStringSchema,
  authorizationNonce: v.pipe(v.string(), v.regex(HASH32)),
  txHash: v.pipe(v.string(), v.regex(HASH32)),
  blockNumber: v.optional(uintStringSchema),
  issuedAt: unixSecondsSchema,
});

/** Schema of a {@link RejectedRefundReceipt} received from elsewhere. */
export const rejectedRefundReceiptSchema = v.looseObject({
  type: v.literal(REJECTED_REFUND_RECEIPT_TYPE),
  version: v.literal(1),
  refundOf: refundOfSchema,
  refundId: v.optional(idSchema('rfd')),
  orderId: v.optional(idSchema('ord')),
  originalPayer: addressSchema,
  originalPayTo: addressSchema,
  amount: v.optional(uintStringSchema),
  reason: v.optional(reasonSchema),
  ...networkFields,
  issuedAt: unixSecondsSchema,
});

type NetworkFacts = Pick<GatewayNetwork, 'caip2' | 'chainId' | 'usdc'>;

/** Input of {@link buildRefundReceipt}: the facts, in any spelling. */
export interface BuildRefundReceiptParams {
  refundId: string;
  orderId: string;
  refId: string;
  paymentId: string;
  refundOf: string;
  gatewayOrigin: string;
  network: NetworkFacts;
  from: string;
  to: string;
  amount: string;
  authorizationNonce: string;
  txHash: string;
  blockNumber?: bigint | number | string;
  issuedAt: number;
}

/** Input of {@link buildRejectedRefundReceipt}. */
export interface BuildRejectedRefundReceiptParams {
  refundOf: string;
  refundId?: string;
  orderId?: string;
  originalPayer: string;
  originalPayTo: string;
  amount?: string;
  reason?: string;
  gatewayOrigin: string;
  network: NetworkFacts;
  issuedAt: number;
}

function checked<T>(schema: v.GenericSchema<unknown, unknown>, receipt: T): T {
  const result = v.safeParse(schema, receipt);
  if (!result.success) throw new TypeError(`The refund receipt facts are malformed at ${issuePath(result.issues) || 'receipt'}: ${result.issues[0]?.message ?? 'invalid'}.`);
  return receipt;
}

/**
 * Builds a paid refund's receipt in its one canonical spelling.
 *
 * @param params - The settled refund's facts.
 * @returns The receipt.
 * @throws TypeError / RangeError when a fact is malformed (a caller bug).
 *
 * @example
 * ```ts
 * import { buildRefundReceipt } from '@tollgate/core/x402';
 * const receipt = buildRefundReceipt({ refundId, orderId, refId, paymentId, refundOf, gatewayOrigin, network: base, from: payTo, to: payer, amount: '2500', authorizationNonce, txHash, issuedAt: now });
 * ```
 */
export function buildRefundReceipt(params: BuildRefundReceiptParams): RefundReceipt {
  const network = checkNetwork(params.network);
  const blockNumber = blockNumberText(params.blockNumber);
  return checked(refundReceiptSchema, {
    type: REFUND_RECEIPT_TYPE,
    version: 1,
    refundId: params.refundId,
    orderId: params.orderId,
    refId: params.refId,
    paymentId: params.paymentId,
    refundOf: params.refundOf,
    gatewayOrigin: params.gatewayOrigin,
    network: network.caip2,
    chainId: network.chainId,
    asset: network.usdc.address,
    from: checksum(params.from, 'from'),
    to: checksum(params.to, 'to'),
    amount: params.amount,
    authorizationNonce: lowerHash32(params.authorizationNonce, 'authorizationNonce'),
    txHash: lowerHash32(params.txHash, 'txHash'),
    ...(blockNumber === undefined ? {} : { blockNumber }),
    issuedAt: params.issuedAt,
  } satisfies RefundReceipt);
}

/**
 * Builds a rejected refund's receipt in its one canonical spelling (optional facts left out when absent).
 *
 * @param params - What was refused.
 * @returns The receipt.
 * @throws TypeError when a fact is malformed (a caller bug; routes validate first).
 *
 * @example
 * ```ts
 * import { refundOfReceipt } from '@tollgate/core';
 * import { buildRejectedRefundReceipt } from '@tollgate/core/x402';
 * const rejected = buildRejectedRefundReceipt({ refundOf: refundOfReceipt(original), originalPayer: original.payer, originalPayTo: original.payTo, gatewayOrigin, network: base, issuedAt: now });
 * ```
 */
export function buildRejectedRefundReceipt(params: BuildRejectedRefundReceiptParams): RejectedRefundReceipt {
  const network = checkNetwork(params.network);
  const optional = <K extends 'refundId' | 'orderId' | 'amount' | 'reason'>(key: K) => (params[key] === undefined ? {} : { [key]: params[key] });
  return checked(rejectedRefundReceiptSchema, {
    type: REJECTED_REFUND_RECEIPT_TYPE,
    version: 1,
    refundOf: params.refundOf,
    ...optional('refundId'),
    ...optional('orderId'),
    originalPayer: checksum(params.originalPayer, 'originalPayer'),
    originalPayTo: checksum(params.originalPayTo, 'originalPayTo'),
    ...optional('amount'),
    ...optional('reason'),
    gatewayOrigin: params.gatewayOrigin,
    network: network.caip2,
    chainId: network.chainId,
    asset: network.usdc.address,
    issuedAt: params.issuedAt,
  } as RejectedRefundReceipt);
}

/**
 * The `refundOf` naming a payment receipt: `sha256:` + its {@link receiptHash}.
 *
 * @param receipt - The original payment's receipt.
 * @returns `sha256:<64 hex digits>`.
 *
 * @example
 * ```ts
 * import { refundOfReceipt } from '@tollgate/core';
 * const url = `${gateway}/receive/${payer}?ref=${refundRefId}&refundOf=${refundOfReceipt(receipt)}`;
 * ```
 */
export function refundOfReceipt(receipt: PaymentReceipt): string {
  return `sha256:${receiptHash(receipt)}`;
}

/**
 * `lowercase hex(sha256(UTF-8(JCS(receipt))))`, as {@link receiptHash} computes it for payment receipts.
 *
 * @param receipt - Either refund receipt (every key counts, including unknown ones).
 * @returns 64 lowercase hex digits, no prefix.
 *
 * @example
 * ```ts
 * import { refundReceiptHash } from '@tollgate/core/x402';
 * const hash = refundReceiptHash(refundReceipt);
 * ```
 */
export function refundReceiptHash(receipt: AnyRefundReceipt): string {
  return canonicalReceiptHash(receipt);
}

/** The EIP-712 digest a refund receipt's `signedReceipt` signs (shared with `readRefundReceipt`): a payment receipt's, over the refund receipt's hash. */
export const refundReceiptDigest = (hash: string): Uint8Array => signedReceiptDigest(hash);

/**
 * Signs either refund receipt with the key that signs payment receipts, in the same scheme (see the module).
 *
 * @param receipt - The receipt.
 * @param signer - The gateway's receipt key.
 * @returns The `signedReceipt` string (65 bytes, `0x` hex).
 *
 * @example
 * ```ts
 * import { signRefundReceipt } from '@tollgate/core/x402';
 * const signedReceipt = await signRefundReceipt(rejected, gatewayKey);
 * ```
 */
export async function signRefundReceipt(receipt: AnyRefundReceipt, signer: EvmSigner): Promise<Hex> {
  return signReceiptHash(refundReceiptHash(receipt), signer);
}
