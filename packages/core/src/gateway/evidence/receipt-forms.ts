import canonicalize from 'canonicalize';
import * as v from 'valibot';
import { getAddress, type Address, type Hash, type Hex } from 'viem';
import { GatewayError } from '../../errors/gateway';
import { PAYMENT_RECEIPT_TYPE, paymentReceiptSchema, receiptHash, verifySignedReceipt, type PaymentReceipt } from '../../x402/receipt';
import { issuePath } from '../../x402/wire';
import { recoverX402ReceiptSigner, type X402ReceiptPayload } from '../../x402/x402-offer-receipt';
import type { BoundedCache } from '../payments/bounded-cache';

/**
 * A receipt this gateway issues, read from a `/verify-receipt` request: the Tollgate receipt
 * (`extensions['offer-receipt'].receipt` with `signedReceipt`) or the official x402 receipt
 * (`extensions['offer-receipt'].info.receipt`: the whole `{ format, payload, signature }`, or its
 * `payload` with the signature as `signedReceipt`), with the address its signature recovers to.
 */
export type IssuedReceipt =
  | {
      readonly kind: 'tollgate';
      readonly receipt: PaymentReceipt;
      readonly receiptHash: string;
      /** The recovered signer; `null` when the signature does not recover. */
      readonly signer: Address | null;
    }
  | {
      readonly kind: 'x402';
      readonly payload: X402ReceiptPayload;
      /** The artifact's own `signature`, when the whole artifact was sent (it must equal `signedReceipt`). */
      readonly artifactSignature: string | undefined;
      readonly signer: Address | null;
    };

const hash32 = /^0x[0-9a-fA-F]{64}$/;

/** The official x402 receipt payload (§5.2). Strict: a field the signature does not cover is refused. */
const x402PayloadSchema = v.strictObject({
  version: v.literal(1),
  network: v.pipe(v.string(), v.regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, 'a CAIP-2 network id')),
  resourceUrl: v.pipe(v.string(), v.minLength(1), v.maxLength(2_048)),
  payer: v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/, 'a 20-byte 0x hex address')),
  issuedAt: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  transaction: v.pipe(v.string(), v.regex(hash32, 'a transaction hash (32 bytes of 0x hex)')),
});
const x402ArtifactSchema = v.strictObject({ format: v.literal('eip712'), payload: v.unknown(), signature: v.string() });

function malformed(field: string, message: string): GatewayError {
  return new GatewayError('receipt_invalid', `The receipt is malformed at ${field}: ${message}.`, { details: { reason: 'malformed_receipt', field } });
}

function parsed<T>(schema: v.GenericSchema<unknown, T>, input: unknown, prefix: string): T {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const path = issuePath(result.issues);
  throw malformed(path === '' ? prefix : `${prefix}.${path}`, result.issues[0]?.message ?? 'invalid');
}

/**
 * Reads the receipt of a `/verify-receipt` request and recovers its signer. Recovery is cached by
 * content and signature (a final fact: the same bytes always recover the same address); whether that
 * address is accepted is decided by the caller on every request.
 *
 * @param signedReceipt - The request's `signedReceipt`.
 * @param receipt - The request's `receipt` (untrusted).
 * @param signers - Cache of recovered signers.
 * @returns The receipt with its recovered signer.
 * @throws GatewayError `receipt_invalid` (`details.reason: 'malformed_receipt'`, `details.field`) when it is neither form.
 * @example
 * ```ts
 * import { createBoundedCache, readIssuedReceipt } from '@tollgate/core/gateway';
 * const issued = readIssuedReceipt(body.signedReceipt, body.receipt, createBoundedCache(1_000));
 * ```
 */
export function readIssuedReceipt(signedReceipt: string, receipt: unknown, signers: BoundedCache<Address | null>): IssuedReceipt {
  if (typeof receipt !== 'object' || receipt === null || Array.isArray(receipt)) throw malformed('receipt', 'expected an object');
  const fields = receipt as Record<string, unknown>;
  if (Object.hasOwn(fields, 'type')) {
    if (fields['type'] !== PAYMENT_RECEIPT_TYPE) throw malformed('receipt.type', `expected "${PAYMENT_RECEIPT_TYPE}"`);
    const typed = parsed(paymentReceiptSchema, receipt, 'receipt') as PaymentReceipt;
    const hash = receiptHash(typed);
    const key = `tollgate:${hash}:${signedReceipt.toLowerCase()}`;
    let signer = signers.get(key);
    if (signer === undefined) {
      const checked = verifySignedReceipt(signedReceipt, typed, '0x0000000000000000000000000000000000000000');
      signer = checked.valid ? checked.signer : checked.reason === 'wrong_signer' && checked.signer !== undefined ? getAddress(checked.signer) : null;
      signers.set(key, signer);
    }
    return { kind: 'tollgate', receipt: typed, receiptHash: hash, signer };
  }
  const artifact = Object.hasOwn(fields, 'format') ? parsed(x402ArtifactSchema, receipt, 'receipt') : undefined;
  const payload = parsed(x402PayloadSchema, artifact === undefined ? receipt : artifact.payload, artifact === undefined ? 'receipt' : 'receipt.payload') as X402ReceiptPayload;
  const key = `x402:${canonicalize(payload) ?? ''}:${signedReceipt.toLowerCase()}`;
  let signer = signers.get(key);
  if (signer === undefined) {
    const recovered = recoverX402ReceiptSigner({ format: 'eip712', payload, signature: signedReceipt as Hex });
    signer = recovered === undefined ? null : getAddress(recovered);
    signers.set(key, signer);
  }
  return { kind: 'x402', payload, artifactSignature: artifact?.signature, signer };
}

/** What the chain must show for an issued receipt; `undefined` where the receipt does not say. */
export interface ReceiptClaims {
  /** CAIP-2. */
  readonly network: string;
  readonly txHash: Hash;
  readonly payer: Address;
  readonly payTo: Address | undefined;
  readonly amount: string | undefined;
  readonly nonce: Hex | undefined;
}

/**
 * The chain facts a receipt claims: all of them for a Tollgate receipt; network, transaction and payer
 * for an x402 receipt (payTo and amount come from its ref or the request's expectations).
 *
 * @param issued - From {@link readIssuedReceipt}.
 * @returns The claims.
 * @example
 * ```ts
 * import { receiptClaims } from '@tollgate/core/gateway';
 * const { txHash, payer } = receiptClaims(issued);
 * ```
 */
export function receiptClaims(issued: IssuedReceipt): ReceiptClaims {
  if (issued.kind === 'tollgate') {
    const { receipt } = issued;
    return {
      network: receipt.network,
      txHash: receipt.txHash.toLowerCase() as Hash,
      payer: getAddress(receipt.payer),
      payTo: getAddress(receipt.payTo),
      amount: receipt.amount,
      nonce: receipt.authorizationNonce.toLowerCase() as Hex,
    };
  }
  const { payload } = issued;
  return { network: payload.network, txHash: payload.transaction.toLowerCase() as Hash, payer: getAddress(payload.payer), payTo: undefined, amount: undefined, nonce: undefined };
}
