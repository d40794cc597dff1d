import type { Address, Hex } from 'viem';
import { defineEip712Struct, eip712Digest, eip712DomainSeparator } from './eip712';
import { recoverDigestSigner, signEip712Digest, type EvmSigner } from './evm-signature';
import type { ExtensionEntry, PaymentRequirements } from './wire';

/**
 * The artifacts of the official x402 `offer-receipt` extension (spec v1.0, `@x402/extensions/offer-receipt`),
 * EIP-712 format, so that official x402 tools (`verifyOfferSignatureEIP712`,
 * `verifyReceiptSignatureEIP712`, `extractReceiptFromResponse`) read and verify what Tollgate sends.
 * Domains are `{ name: 'x402 offer' | 'x402 receipt', version: '1', chainId: 1 }` (fixed chain id 1, no
 * contract) and the types are normative, not transmitted.
 */

/** The extension key. */
export const OFFER_RECEIPT = 'offer-receipt';

const offerDomainSeparator = eip712DomainSeparator({ name: 'x402 offer', version: '1', chainId: 1 });
const receiptDomainSeparator = eip712DomainSeparator({ name: 'x402 receipt', version: '1', chainId: 1 });
const offerStruct = defineEip712Struct('Offer', [
  { name: 'version', type: 'uint256' },
  { name: 'resourceUrl', type: 'string' },
  { name: 'scheme', type: 'string' },
  { name: 'network', type: 'string' },
  { name: 'asset', type: 'string' },
  { name: 'payTo', type: 'string' },
  { name: 'amount', type: 'string' },
  { name: 'validUntil', type: 'uint256' },
]);
const receiptStruct = defineEip712Struct('Receipt', [
  { name: 'version', type: 'uint256' },
  { name: 'network', type: 'string' },
  { name: 'resourceUrl', type: 'string' },
  { name: 'payer', type: 'string' },
  { name: 'issuedAt', type: 'uint256' },
  { name: 'transaction', type: 'string' },
]);

/** Signed fields of an x402 offer (§4.2). */
export interface X402OfferPayload {
  version: 1;
  resourceUrl: string;
  scheme: string;
  network: string;
  asset: string;
  payTo: string;
  amount: string;
  /** Unix seconds; 0 means "no expiry". */
  validUntil: number;
}

/** An EIP-712 signed x402 offer; `acceptIndex` is an unsigned hint into `accepts[]`. */
export interface X402SignedOffer {
  format: 'eip712';
  acceptIndex?: number;
  payload: X402OfferPayload;
  signature: Hex;
}

/** Signed fields of an x402 receipt (§5.2). */
export interface X402ReceiptPayload {
  version: 1;
  network: string;
  resourceUrl: string;
  payer: string;
  /** Unix seconds. */
  issuedAt: number;
  /** Transaction hash, or `''` when withheld. */
  transaction: string;
}

/** An EIP-712 signed x402 receipt. */
export interface X402SignedReceipt {
  format: 'eip712';
  payload: X402ReceiptPayload;
  signature: Hex;
}

/** JSON Schema of `info` of the offers entry, as the official server sends it. */
export const x402OfferInfoSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    offers: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          format: { type: 'string' },
          acceptIndex: { type: 'integer' },
          payload: {
            type: 'object',
            properties: {
              version: { type: 'integer' },
              resourceUrl: { type: 'string' },
              scheme: { type: 'string' },
              network: { type: 'string' },
              asset: { type: 'string' },
              payTo: { type: 'string' },
              amount: { type: 'string' },
              validUntil: { type: 'integer' },
            },
            required: ['version', 'resourceUrl', 'scheme', 'network', 'asset', 'payTo', 'amount'],
          },
          signature: { type: 'string' },
        },
        required: ['format', 'signature'],
      },
    },
  },
  required: ['offers'],
} as const;

/** JSON Schema of `info` of the receipt entry, as the official server sends it. */
export const x402ReceiptInfoSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    receipt: {
      type: 'object',
      properties: {
        format: { type: 'string' },
        payload: {
          type: 'object',
          properties: {
            version: { type: 'integer' },
            network: { type: 'string' },
            resourceUrl: { type: 'string' },
            payer: { type: 'string' },
            issuedAt: { type: 'integer' },
            transaction: { type: 'string' },
          },
          required: ['version', 'network', 'resourceUrl', 'payer', 'issuedAt'],
        },
        signature: { type: 'string' },
      },
      required: ['format', 'signature'],
    },
  },
  required: ['receipt'],
} as const;

const offerDigest = (payload: X402OfferPayload) => eip712Digest(offerDomainSeparator, offerStruct.hash({ ...payload }));
const receiptDigest = (payload: X402ReceiptPayload) => eip712Digest(receiptDomainSeparator, receiptStruct.hash({ ...payload }));

/** Types and domains for the `signTypedData` fallback (numbers as bigint, as the official SDK does). */
function offerTypedData(payload: X402OfferPayload) {
  return {
    domain: { name: 'x402 offer', version: '1', chainId: 1 },
    types: { Offer: offerStruct.fields.map((field) => ({ ...field })) },
    primaryType: 'Offer',
    message: { ...payload, version: BigInt(payload.version), validUntil: BigInt(payload.validUntil) },
  };
}
function receiptTypedData(payload: X402ReceiptPayload) {
  return {
    domain: { name: 'x402 receipt', version: '1', chainId: 1 },
    types: { Receipt: receiptStruct.fields.map((field) => ({ ...field })) },
    primaryType: 'Receipt',
    message: { ...payload, version: BigInt(payload.version), issuedAt: BigInt(payload.issuedAt) },
  };
}

/**
 * Signs the official x402 offer for one `accepts[]` entry. The signed fields are copied from the
 * requirement exactly (same address spelling), since clients match offers to `accepts[]` by field.
 *
 * @param params - The resource URL, the requirement, its index in `accepts[]` and `validUntil` (Unix seconds).
 * @param signer - The gateway's key.
 * @returns The signed offer for `PaymentRequired.extensions['offer-receipt'].info.offers[]`.
 *
 * @example
 * ```ts
 * import { signX402Offer, x402OffersExtension, OFFER_RECEIPT } from '@tollgate/core/x402';
 * const offer = await signX402Offer({ resourceUrl, requirements: accepted, acceptIndex: 0, validUntil: expiry }, gatewayKey);
 * extensions[OFFER_RECEIPT] = x402OffersExtension([offer]);
 * ```
 */
export async function signX402Offer(
  params: { resourceUrl: string; requirements: Readonly<PaymentRequirements>; acceptIndex?: number; validUntil: number },
  signer: EvmSigner,
): Promise<X402SignedOffer> {
  const { requirements } = params;
  const payload: X402OfferPayload = {
    version: 1,
    resourceUrl: params.resourceUrl,
    scheme: requirements.scheme,
    network: requirements.network,
    asset: requirements.asset,
    payTo: requirements.payTo,
    amount: requirements.amount,
    validUntil: params.validUntil,
  };
  const signature = await signEip712Digest(signer, offerDigest(payload), offerTypedData(payload));
  return params.acceptIndex === undefined ? { format: 'eip712', payload, signature } : { format: 'eip712', acceptIndex: params.acceptIndex, payload, signature };
}

/**
 * Signs the official x402 receipt of a settled payment. Tollgate includes the transaction hash (the
 * official default withholds it for privacy; Tollgate's own receipt carries it anyway).
 *
 * @param params - Network (CAIP-2), resource URL, payer, issue time (Unix seconds) and transaction hash.
 * @param signer - The gateway's key.
 * @returns The signed receipt for `SettleResponse.extensions['offer-receipt'].info.receipt`.
 *
 * @example
 * ```ts
 * import { signX402Receipt } from '@tollgate/core/x402';
 * const x402Receipt = await signX402Receipt({ network: 'eip155:8453', resourceUrl, payer, issuedAt, transaction: txHash }, gatewayKey);
 * ```
 */
export async function signX402Receipt(
  params: { network: string; resourceUrl: string; payer: string; issuedAt: number; transaction: string },
  signer: EvmSigner,
): Promise<X402SignedReceipt> {
  const payload: X402ReceiptPayload = {
    version: 1,
    network: params.network,
    resourceUrl: params.resourceUrl,
    payer: params.payer,
    issuedAt: params.issuedAt,
    transaction: params.transaction,
  };
  const signature = await signEip712Digest(signer, receiptDigest(payload), receiptTypedData(payload));
  return { format: 'eip712', payload, signature };
}

/**
 * The offers entry `{ info: { offers }, schema }` for `PaymentRequired.extensions['offer-receipt']`.
 *
 * @param offers - Signed offers, one per `accepts[]` entry.
 * @returns The extension entry.
 *
 * @example
 * ```ts
 * import { x402OffersExtension, OFFER_RECEIPT } from '@tollgate/core/x402';
 * const extensions = { [OFFER_RECEIPT]: x402OffersExtension([offer]) };
 * ```
 */
export function x402OffersExtension(offers: readonly X402SignedOffer[]): ExtensionEntry<{ offers: X402SignedOffer[] }> {
  return { info: { offers: [...offers] }, schema: x402OfferInfoSchema };
}

/**
 * Recovers the signer of an official x402 offer (signer authorization, e.g. signer = gateway key, is the
 * caller's policy).
 *
 * @param offer - The signed offer.
 * @returns The signer, or `undefined` when the signature does not recover.
 *
 * @example
 * ```ts
 * import { recoverX402OfferSigner } from '@tollgate/core/x402';
 * const ok = recoverX402OfferSigner(offer) === gatewayAddress;
 * ```
 */
export function recoverX402OfferSigner(offer: X402SignedOffer): Address | undefined {
  return recoverOrUndefined(() => offerDigest(offer.payload), offer.signature);
}

/**
 * Recovers the signer of an official x402 receipt.
 *
 * @param receipt - The signed receipt.
 * @returns The signer, or `undefined` when the signature does not recover.
 *
 * @example
 * ```ts
 * import { recoverX402ReceiptSigner } from '@tollgate/core/x402';
 * const ok = recoverX402ReceiptSigner(receipt) === gatewayAddress;
 * ```
 */
export function recoverX402ReceiptSigner(receipt: X402SignedReceipt): Address | undefined {
  return recoverOrUndefined(() => receiptDigest(receipt.payload), receipt.signature);
}

/** Untrusted payloads may hold values that cannot be encoded (a negative `issuedAt`): no signer then. */
function recoverOrUndefined(digest: () => Uint8Array, signature: string): Address | undefined {
  let bytes: Uint8Array;
  try {
    bytes = digest();
  } catch {
    return undefined;
  }
  const recovered = recoverDigestSigner(bytes, signature);
  return recovered.ok ? recovered.address : undefined;
}
