import { getAddress, isAddressEqual, type Address } from 'viem';
import type { PaymentReceipt } from '../../x402/receipt';
import type { NetworkRegistry } from '../networks';
import type { RefSnapshot } from '../refs/ref-service';
import type { GatewayStores } from '../store/gateway-stores';
import type { RefRecord } from '../store/records';
import type { IssuedReceipt } from './receipt-forms';

/** One checked field: what was expected (and where that expectation comes from) against what was found. */
export interface FieldEvidence {
  /** The receipt field (`amount`, `payTo`, …) or chain fact (`transfer.to`, …). */
  readonly field: string;
  readonly expected: unknown;
  readonly found: unknown;
  readonly match: boolean;
  /**
   * Where `expected` comes from: `stored_receipt` (the receipt this gateway signed and stored),
   * `request` (`expectedPayTo` / `expectedAmount`), `network` (this gateway's network registry), `ref`
   * (the ref an x402 receipt's resource names), `receipt` (what the receipt itself claims, for chain facts).
   */
  readonly source: 'stored_receipt' | 'request' | 'network' | 'ref' | 'receipt';
}

/**
 * Whether the receipt says what was signed, and what the caller expects:
 * - `content`: `signed` (the signature verifies, so every field is what was signed), `matches_stored` /
 *   `differs_from_stored` (the signature does not verify; the receipt this gateway stored for the same
 *   payment decides, field by field), `unverifiable` (neither: nothing proves what was signed);
 * - `fields`: every comparison made, mismatches included.
 */
export interface ContextReport {
  readonly valid: boolean;
  readonly content: 'signed' | 'matches_stored' | 'differs_from_stored' | 'unverifiable';
  readonly fields: readonly FieldEvidence[];
}

/** The request's expectations, already validated (`expectedPayTo` checksummed). */
export interface ReceiptExpectations {
  readonly expectedPayTo?: Address | undefined;
  readonly expectedAmount?: string | undefined;
}

/** What an x402 receipt's resource URL says, when it names a ref of this gateway. */
export interface ReceiptRef {
  readonly ref: RefRecord;
  readonly resource: string;
}

const sameAddressText = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && /^0x[0-9a-fA-F]{40}$/.test(a) && /^0x[0-9a-fA-F]{40}$/.test(b) && isAddressEqual(a as Address, b as Address);
const addressFields = new Set(['asset', 'payTo', 'payer']);

function compare(field: string, expected: unknown, found: unknown, source: FieldEvidence['source']): FieldEvidence {
  const match = addressFields.has(field) ? sameAddressText(expected, found) : JSON.stringify(expected) === JSON.stringify(found);
  return { field, expected: expected ?? null, found: found ?? null, match, source };
}

/**
 * The ref an x402 receipt's `resourceUrl` names, when it is one of this gateway's receive URLs
 * (`<publicUrl>/receive/<payTo>?ref=<refId>`) and the ref exists.
 *
 * @param resourceUrl - The receipt's resource URL.
 * @param publicUrl - This gateway's origin.
 * @param refs - The ref store.
 * @returns The ref and its snapshot's resource, or `undefined`.
 * @example
 * ```ts
 * import { refOfResource } from '@tollgate/core/gateway';
 * const named = await refOfResource(payload.resourceUrl, 'https://pay.example.com', stores.refs);
 * ```
 */
export async function refOfResource(resourceUrl: string, publicUrl: string, refs: GatewayStores['refs']): Promise<ReceiptRef | undefined> {
  let url: URL;
  try {
    url = new URL(resourceUrl);
  } catch {
    return undefined;
  }
  const refId = url.searchParams.get('ref');
  if (url.origin !== new URL(publicUrl).origin || !url.pathname.startsWith('/receive/') || refId === null || !/^[A-Za-z0-9_-]{1,64}$/.test(refId)) return undefined;
  const ref = await refs.getRef(refId);
  return ref === undefined ? undefined : { ref, resource: (JSON.parse(ref.snapshotJson) as RefSnapshot).resource };
}

/**
 * The context report of a receipt (see {@link ContextReport}).
 *
 * @param params - The receipt, whether its signature is accepted, the expectations, the registry, the
 *   payment store (read only when the signature is not accepted) and, for an x402 receipt, its ref.
 * @returns The report.
 * @example
 * ```ts
 * import { receiptContext } from '@tollgate/core/gateway';
 * const context = await receiptContext({ issued, signatureValid: true, expectations: { expectedAmount: '10000' }, networks, payments: stores.payments, ref: undefined });
 * ```
 */
export async function receiptContext(params: {
  issued: IssuedReceipt;
  signatureValid: boolean;
  expectations: ReceiptExpectations;
  networks: NetworkRegistry;
  payments: GatewayStores['payments'];
  ref: ReceiptRef | undefined;
}): Promise<ContextReport> {
  const { issued, expectations } = params;
  const fields: FieldEvidence[] = [];
  let content: ContextReport['content'] = params.signatureValid ? 'signed' : 'unverifiable';

  if (issued.kind === 'tollgate') {
    const { receipt } = issued;
    if (!params.signatureValid) {
      const stored = await storedReceipt(params.payments, receipt);
      if (stored !== undefined) {
        const keys = [...new Set([...Object.keys(stored), ...Object.keys(receipt)])];
        const compared = keys.map((key) => compare(key, stored[key], (receipt as unknown as Record<string, unknown>)[key], 'stored_receipt'));
        fields.push(...compared);
        content = compared.every((entry) => entry.match) ? 'matches_stored' : 'differs_from_stored';
      }
    }
    const network = params.networks.byCaip2(receipt.network);
    fields.push(compare('network', network?.caip2 ?? 'a network of this gateway', receipt.network, 'network'));
    if (network !== undefined) {
      fields.push(compare('chainId', network.chainId, receipt.chainId, 'network'), compare('asset', network.usdc.address, receipt.asset, 'network'));
    }
    if (expectations.expectedPayTo !== undefined) fields.push(compare('payTo', expectations.expectedPayTo, receipt.payTo, 'request'));
    if (expectations.expectedAmount !== undefined) fields.push(compare('amount', expectations.expectedAmount, receipt.amount, 'request'));
  } else {
    const { payload } = issued;
    fields.push(compare('network', params.networks.byCaip2(payload.network)?.caip2 ?? 'a network of this gateway', payload.network, 'network'));
    const { ref } = params;
    if (ref !== undefined) {
      fields.push(compare('resourceUrl', ref.resource, payload.resourceUrl, 'ref'));
      if (expectations.expectedPayTo !== undefined) fields.push(compare('payTo', expectations.expectedPayTo, getAddress(ref.ref.payTo), 'request'));
      if (expectations.expectedAmount !== undefined && ref.ref.amount !== null) fields.push(compare('amount', expectations.expectedAmount, ref.ref.amount, 'request'));
    }
  }
  const valid = (content === 'signed' || content === 'matches_stored') && fields.every((entry) => entry.match);
  return { valid, content, fields };
}

/** The receipt this gateway stored for the payment `receipt` names (by payment id, else by authorization). */
async function storedReceipt(payments: GatewayStores['payments'], receipt: PaymentReceipt): Promise<Record<string, unknown> | undefined> {
  const payment = await payments.findPayment({
    paymentId: receipt.paymentId,
    chainId: receipt.chainId,
    payer: getAddress(receipt.payer),
    nonce: receipt.authorizationNonce.toLowerCase(),
  });
  if (payment === undefined || payment.state !== 'settled' || payment.receiptJson === null) return undefined;
  return JSON.parse(payment.receiptJson) as Record<string, unknown>;
}
