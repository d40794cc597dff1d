import canonicalize from 'canonicalize';
import * as v from 'valibot';
import { getAddress, type Address, type Hex } from 'viem';
import { hexEncode } from '../crypto/hex';
import { sha256 } from '../crypto/hash';
import { utf8Encode } from '../crypto/utf8';
import { defineEip712Struct, eip712Digest, eip712DomainSeparator, eip712Types } from './eip712';
import { recoverDigestSigner, sameAddress, signEip712Digest, type EvmSigner } from './evm-signature';
import { checkNetwork, checksum, type GatewayNetwork } from './network';
import { addressSchema, issuePath, networkSchema, uintStringSchema, type Network } from './wire';

/** The receipt's `type`. */
export const PAYMENT_RECEIPT_TYPE = 'x402.payment.receipt';

/**
 * Tollgate's receipt of a settled payment: everything a merchant needs to match it to an order and
 * to check it on chain, signed by the gateway (see {@link signReceipt}). Numbers that can exceed 2^53
 * are decimal strings; hex values are lowercase, addresses EIP-55 checksummed, so one payment has one
 * spelling and one {@link receiptHash}.
 */
export interface PaymentReceipt {
  type: typeof PAYMENT_RECEIPT_TYPE;
  /** Receipt schema version, 1. */
  version: 1;
  refId: string;
  /** The client's payment-identifier id, or the id the gateway recorded the claim under when the client sent none. */
  paymentId: string;
  /** The ref's invoice id, when it has one. */
  invoiceId?: string;
  /** The gateway's public origin. */
  gatewayOrigin: string;
  /** The paid resource (the ref's receive URL). */
  resourceUrl: string;
  /** CAIP-2. */
  network: Network;
  chainId: number;
  /** Token contract. */
  asset: Address;
  payTo: Address;
  payer: Address;
  /** Atomic units, decimal string. */
  amount: string;
  /** The EIP-3009 authorization nonce (with `payer`, it names the transfer in `AuthorizationUsed`). */
  authorizationNonce: Hex;
  txHash: Hex;
  /** Block of the settlement transaction, decimal string, when known. */
  blockNumber?: string;
  /** Unix seconds. */
  issuedAt: number;
}

/** Input of {@link buildPaymentReceipt}: the facts, in any spelling. */
export interface BuildPaymentReceiptParams {
  refId: string;
  paymentId: string;
  invoiceId?: string;
  gatewayOrigin: string;
  resourceUrl: string;
  network: Pick<GatewayNetwork, 'caip2' | 'chainId' | 'usdc'>;
  payTo: string;
  payer: string;
  amount: string;
  authorizationNonce: string;
  txHash: string;
  blockNumber?: bigint | number | string;
  issuedAt: number;
}

const HASH32 = /^0x[0-9a-fA-F]{64}$/;
const unixSecondsSchema = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

/** Schema of a {@link PaymentReceipt} received from elsewhere (unknown keys are kept: the hash covers them). */
export const paymentReceiptSchema = v.looseObject({
  type: v.literal(PAYMENT_RECEIPT_TYPE),
  version: v.literal(1),
  refId: v.pipe(v.string(), v.minLength(1)),
  paymentId: v.pipe(v.string(), v.minLength(1)),
  invoiceId: v.optional(v.string()),
  gatewayOrigin: v.pipe(v.string(), v.minLength(1)),
  resourceUrl: v.pipe(v.string(), v.minLength(1)),
  network: networkSchema,
  chainId: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  asset: addressSchema,
  payTo: addressSchema,
  payer: addressSchema,
  amount: uintStringSchema,
  authorizationNonce: v.pipe(v.string(), v.regex(HASH32)),
  txHash: v.pipe(v.string(), v.regex(HASH32)),
  blockNumber: v.optional(uintStringSchema),
  issuedAt: unixSecondsSchema,
});

/**
 * Builds a receipt in its one canonical spelling (checksummed addresses, lowercase hex, decimal block
 * number) with the keys in a readable order.
 *
 * @param params - The settled payment's facts.
 * @returns The receipt.
 * @throws TypeError / RangeError when a fact is malformed (a caller bug).
 *
 * @example
 * ```ts
 * import { buildPaymentReceipt } from '@tollgate/core/x402';
 * const receipt = buildPaymentReceipt({ refId, paymentId, gatewayOrigin, resourceUrl, network: base, payTo, payer, amount: '10000', authorizationNonce, txHash, blockNumber: 123n, issuedAt: now });
 * ```
 */
export function buildPaymentReceipt(params: BuildPaymentReceiptParams): PaymentReceipt {
  const network = checkNetwork(params.network);
  const authorizationNonce = lowerHash32(params.authorizationNonce, 'authorizationNonce');
  const txHash = lowerHash32(params.txHash, 'txHash');
  if (!v.is(uintStringSchema, params.amount)) throw new RangeError('amount must be an atomic decimal string.');
  if (!Number.isSafeInteger(params.issuedAt) || params.issuedAt < 0) throw new RangeError('issuedAt must be Unix seconds.');
  const receipt: PaymentReceipt = {
    type: PAYMENT_RECEIPT_TYPE,
    version: 1,
    refId: params.refId,
    paymentId: params.paymentId,
    ...(params.invoiceId === undefined ? {} : { invoiceId: params.invoiceId }),
    gatewayOrigin: params.gatewayOrigin,
    resourceUrl: params.resourceUrl,
    network: network.caip2,
    chainId: network.chainId,
    asset: network.usdc.address,
    payTo: checksum(params.payTo, 'payTo'),
    payer: checksum(params.payer, 'payer'),
    amount: params.amount,
    authorizationNonce,
    txHash,
    issuedAt: params.issuedAt,
  };
  const blockNumber = blockNumberText(params.blockNumber);
  if (blockNumber !== undefined) receipt.blockNumber = blockNumber;
  if (!v.is(paymentReceiptSchema, receipt)) throw new TypeError('The receipt facts are malformed (empty id, origin or URL?).');
  return receipt;
}

/**
 * A 32-byte hash or nonce in its one receipt spelling (lowercase `0x` hex).
 *
 * @param value - The value in any case.
 * @param name - The receipt field, for the error.
 * @returns The lowercase value.
 * @throws TypeError when it is not 32 bytes of `0x` hex (a caller bug).
 * @example
 * ```ts
 * const txHash = lowerHash32(params.txHash, 'txHash');
 * ```
 */
export function lowerHash32(value: string, name: string): Hex {
  if (typeof value !== 'string' || !HASH32.test(value)) throw new TypeError(`${name} must be 32 bytes of 0x hex.`);
  return value.toLowerCase() as Hex;
}

/**
 * A block number in its one receipt spelling (a decimal string); absent stays absent.
 *
 * @param value - The block number, if known.
 * @returns Its decimal string, or `undefined`.
 * @throws RangeError when it is not a non-negative integer (a caller bug).
 * @example
 * ```ts
 * const blockNumber = blockNumberText(123n); // '123'
 * ```
 */
export function blockNumberText(value: bigint | number | string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  if (!/^(0|[1-9][0-9]*)$/.test(text)) throw new RangeError('blockNumber must be a non-negative integer.');
  return text;
}

/**
 * `receiptHash = lowercase hex(sha256(UTF-8(JCS(receipt))))`, where JCS is the RFC 8785 JSON
 * Canonicalization Scheme (keys sorted by UTF-16 code units, no whitespace, ECMAScript number
 * formatting). It names the receipt everywhere: the signature covers it, and refunds point to the
 * original payment with `refundOf=sha256:<receiptHash>`. Any JCS implementation reproduces it.
 *
 * @param receipt - The receipt (every key counts, including unknown ones).
 * @returns 64 lowercase hex digits, no prefix.
 *
 * @example
 * ```ts
 * import { receiptHash } from '@tollgate/core/x402';
 * const refundOf = `sha256:${receiptHash(receipt)}`;
 * ```
 */
export function receiptHash(receipt: PaymentReceipt): string {
  return canonicalReceiptHash(receipt);
}

/**
 * The {@link receiptHash} rule for any kind of Tollgate receipt (refund receipts are hashed and signed
 * exactly like payment receipts).
 *
 * @param receipt - The receipt object.
 * @returns 64 lowercase hex digits, no prefix.
 * @example
 * ```ts
 * const hash = canonicalReceiptHash(refundReceipt);
 * ```
 */
export function canonicalReceiptHash(receipt: object): string {
  const canonical = canonicalize(receipt);
  if (canonical === undefined) throw new TypeError('A receipt must be a JSON object.');
  return hexEncode(sha256(utf8Encode(canonical)));
}

/** EIP-712 domain of `signedReceipt`. */
export const tollgateReceiptDomain = { name: 'Tollgate Receipt', version: '1' } as const;
const receiptStruct = defineEip712Struct('TollgateReceipt', [{ name: 'receiptHash', type: 'bytes32' }]);
const receiptDomainSeparator = eip712DomainSeparator(tollgateReceiptDomain);

/** `types` of `TollgateReceipt(bytes32 receiptHash)`. */
export const tollgateReceiptTypes = eip712Types('TollgateReceipt', receiptStruct);

/**
 * The EIP-712 digest that a `signedReceipt` signs: `TollgateReceipt(bytes32 receiptHash)` under
 * {@link tollgateReceiptDomain}, for a receipt of any kind.
 *
 * @param hash - The receipt's hash (64 hex digits, no prefix).
 * @returns The 32-byte digest.
 * @example
 * ```ts
 * const recovered = recoverDigestSigner(signedReceiptDigest(receiptHash(receipt)), signedReceipt);
 * ```
 */
export function signedReceiptDigest(hash: string): Uint8Array {
  return eip712Digest(receiptDomainSeparator, receiptStruct.hash({ receiptHash: `0x${hash}` }));
}

/**
 * Signs a receipt's hash as `signedReceipt` (see {@link signReceipt}), for a receipt of any kind.
 *
 * @param hash - The receipt's hash (64 hex digits, no prefix).
 * @param signer - The gateway's receipt key.
 * @returns The `signedReceipt` string.
 * @example
 * ```ts
 * const signedReceipt = await signReceiptHash(canonicalReceiptHash(refundReceipt), gatewayKey);
 * ```
 */
export async function signReceiptHash(hash: string, signer: EvmSigner): Promise<Hex> {
  return signEip712Digest(signer, signedReceiptDigest(hash), {
    domain: { ...tollgateReceiptDomain },
    types: tollgateReceiptTypes,
    primaryType: 'TollgateReceipt',
    message: { receiptHash: `0x${hash}` },
  });
}

/**
 * Signs a receipt: `signedReceipt` is the gateway key's EIP-712 signature (65 bytes, `0x` hex) of
 * `TollgateReceipt(bytes32 receiptHash)` under `{ name: 'Tollgate Receipt', version: '1' }`, with
 * `receiptHash` from {@link receiptHash}. One secp256k1 key signs offers, receipts and the x402
 * artifacts, so merchants pin one address, and any EVM library (viem `verifyTypedData`, ethers,
 * even `ecrecover` on chain) can verify it.
 *
 * @param receipt - The receipt.
 * @param signer - The gateway's key.
 * @returns The `signedReceipt` string.
 *
 * @example
 * ```ts
 * import { signReceipt } from '@tollgate/core/x402';
 * const signedReceipt = await signReceipt(receipt, gatewayKey);
 * ```
 */
export async function signReceipt(receipt: PaymentReceipt, signer: EvmSigner): Promise<Hex> {
  return signReceiptHash(receiptHash(receipt), signer);
}

/** The outcome of {@link verifySignedReceipt}. */
export type SignedReceiptVerification =
  | { valid: true; receipt: PaymentReceipt; receiptHash: string; signer: Address }
  | { valid: false; reason: 'malformed_receipt'; field: string }
  | { valid: false; reason: 'malformed_signature' | 'wrong_signer'; receiptHash: string; signer?: Address };

/**
 * Checks that `signedReceipt` is the expected gateway's signature of exactly this receipt. It checks
 * the signature only; comparing the receipt with an order, and confirmations on chain, are the caller's
 * (the `/verify-receipt` route's) business.
 *
 * @param signedReceipt - The signature string.
 * @param receipt - The receipt as received (untrusted).
 * @param expectedSigner - The gateway's signing address.
 * @returns `valid: true` with the parsed receipt, its hash and the signer, or why not.
 *
 * @example
 * ```ts
 * import { verifySignedReceipt } from '@tollgate/core';
 * const result = verifySignedReceipt(body.signedReceipt, body.receipt, gatewayAddress);
 * if (!result.valid) console.log(result.reason);
 * ```
 */
export function verifySignedReceipt(signedReceipt: unknown, receipt: unknown, expectedSigner: Address): SignedReceiptVerification {
  const parsed = v.safeParse(paymentReceiptSchema, receipt);
  if (!parsed.success) return { valid: false, reason: 'malformed_receipt', field: issuePath(parsed.issues) || 'receipt' };
  const typed = parsed.output as PaymentReceipt;
  const hash = receiptHash(typed);
  const recovered = typeof signedReceipt === 'string' ? recoverDigestSigner(signedReceiptDigest(hash), signedReceipt) : undefined;
  if (!recovered?.ok) return { valid: false, reason: 'malformed_signature', receiptHash: hash };
  if (!sameAddress(recovered.address, expectedSigner)) return { valid: false, reason: 'wrong_signer', receiptHash: hash, signer: recovered.address };
  return { valid: true, receipt: typed, receiptHash: hash, signer: getAddress(recovered.address) };
}
