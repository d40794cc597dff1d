import { getAddress, isAddressEqual, type Address } from 'viem';
import { REFUND_RECEIPT_TYPE } from '../../x402/refund-receipt';
import type { NetworkRegistry } from '../networks';
import type { RefSnapshot } from '../refs/ref-service';
import type { GatewayStores } from '../store/gateway-stores';
import type { RefRecord } from '../store/records';
import { viewerOwns, type EvidenceViewer } from './evidence-viewer';
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
 * Where a refund receipt's binding evidence comes from: the sources of {@link FieldEvidence}, plus
 * `original_receipt` (the request's `originalReceipt`) and `refund_intent` (the refund intent this gateway
 * stored for the refund ref).
 */
export type EvidenceSource = FieldEvidence['source'] | 'original_receipt' | 'refund_intent';

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
const addressFields = new Set(['asset', 'payTo', 'payer', 'from', 'to', 'originalPayer', 'originalPayTo']);

/**
 * One field's evidence: addresses compare case-insensitively, everything else by JSON value.
 *
 * @param field - The field's name (an address field when it is `asset`, `payTo`, `payer`, `from`, `to`, `originalPayer` or `originalPayTo`).
 * @param expected - What it should be.
 * @param found - What it is.
 * @param source - Where `expected` comes from.
 * @returns The evidence.
 * @example
 * ```ts
 * import { compareField } from '@tollgate/core/gateway';
 * compareField('to', original.payer, refund.to, 'original_receipt').match;
 * ```
 */
export function compareField<Source extends EvidenceSource>(
  field: string,
  expected: unknown,
  found: unknown,
  source: Source,
): Omit<FieldEvidence, 'source'> & { readonly source: Source } {
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
 *   payment store (read only when the signature is not accepted), the viewer (a stored receipt it may
 *   not see is treated as absent) and, for an x402 receipt, its ref.
 * @returns The report.
 * @example
 * ```ts
 * import { anyoneViewer, receiptContext } from '@tollgate/core/gateway';
 * const context = await receiptContext({ issued, signatureValid: true, expectations: { expectedAmount: '10000' }, networks, payments: stores.payments, viewer: anyoneViewer, ref: undefined });
 * ```
 */
export async function receiptContext(params: {
  issued: IssuedReceipt;
  signatureValid: boolean;
  expectations: ReceiptExpectations;
  networks: NetworkRegistry;
  payments: GatewayStores['payments'];
  viewer: EvidenceViewer;
  ref: ReceiptRef | undefined;
}): Promise<ContextReport> {
  const { issued, expectations } = params;
  const fields: FieldEvidence[] = [];
  let content: ContextReport['content'] = params.signatureValid ? 'signed' : 'unverifiable';

  if (issued.kind === 'tollgate') {
    const { receipt } = issued;
    if (!params.signatureValid) {
      const stored = await storedReceiptOf(params.payments, { paymentId: receipt.paymentId, chainId: receipt.chainId, payer: receipt.payer, nonce: receipt.authorizationNonce }, params.viewer);
      if (stored !== undefined) {
        const compared = compareWithStored(stored, receipt);
        fields.push(...compared.fields);
        content = compared.content;
      }
    }
    fields.push(...networkFields(params.networks, receipt));
    if (expectations.expectedPayTo !== undefined) fields.push(compareField('payTo', expectations.expectedPayTo, receipt.payTo, 'request'));
    if (expectations.expectedAmount !== undefined) fields.push(compareField('amount', expectations.expectedAmount, receipt.amount, 'request'));
  } else {
    const { payload } = issued;
    fields.push(compareField('network', params.networks.byCaip2(payload.network)?.caip2 ?? 'a network of this gateway', payload.network, 'network'));
    const { ref } = params;
    if (ref !== undefined) {
      fields.push(compareField('resourceUrl', ref.resource, payload.resourceUrl, 'ref'));
      if (expectations.expectedPayTo !== undefined) fields.push(compareField('payTo', expectations.expectedPayTo, getAddress(ref.ref.payTo), 'request'));
      if (expectations.expectedAmount !== undefined && ref.ref.amount !== null) fields.push(compareField('amount', expectations.expectedAmount, ref.ref.amount, 'request'));
    }
  }
  const valid = (content === 'signed' || content === 'matches_stored') && fields.every((entry) => entry.match);
  return { valid, content, fields };
}

/**
 * The receipt this gateway stored for a settled payment (by payment id, else by authorization): a payment
 * receipt, or a refund receipt for a refund ref's payment — only when `viewer` may see it, i.e. owns the
 * stored receipt's merchant side (a payment receipt's `payTo`, a refund receipt's `from`).
 *
 * Why the stored receipt's own merchant side, not the received receipt's: the lookup keys (payment id,
 * authorization) are public chain facts, so a merchant can name another merchant's payment in a forged
 * receipt whose `payTo`/`from` is its own; the comparison would then show the other merchant's stored
 * fields as `expected`. A receipt the viewer may not see is `undefined`, exactly like one that does not
 * exist, so the answer does not even tell that it exists.
 *
 * @param payments - The payment store.
 * @param payment - The payment the receipt names: id, chain, the authorizer (`payer`, or a refund's `from`) and nonce.
 * @param viewer - Who asks (`anyone` under the public policy sees every stored receipt).
 * @returns The stored receipt's fields, or `undefined` (none, not settled, or not the viewer's).
 * @example
 * ```ts
 * import { storedReceiptOf } from '@tollgate/core/gateway';
 * const stored = await storedReceiptOf(stores.payments, { paymentId, chainId: 8453, payer: refund.from, nonce: refund.authorizationNonce }, viewer);
 * ```
 */
export async function storedReceiptOf(
  payments: GatewayStores['payments'],
  payment: { paymentId: string; chainId: number; payer: string; nonce: string },
  viewer: EvidenceViewer,
): Promise<Record<string, unknown> | undefined> {
  const found = await payments.findPayment({ paymentId: payment.paymentId, chainId: payment.chainId, payer: getAddress(payment.payer), nonce: payment.nonce.toLowerCase() });
  if (found === undefined || found.state !== 'settled' || found.receiptJson === null) return undefined;
  const stored = JSON.parse(found.receiptJson) as Record<string, unknown>;
  const merchantSide = stored['type'] === REFUND_RECEIPT_TYPE ? stored['from'] : stored['payTo'];
  return viewerOwns(viewer, typeof merchantSide === 'string' ? merchantSide : undefined) ? stored : undefined;
}

/**
 * A received receipt against the one stored, field by field (every key of either).
 *
 * @param stored - The stored receipt's fields.
 * @param receipt - The received receipt.
 * @returns The evidence and `matches_stored` / `differs_from_stored`.
 * @example
 * ```ts
 * import { compareWithStored } from '@tollgate/core/gateway';
 * const { content, fields } = compareWithStored(stored, receipt);
 * ```
 */
export function compareWithStored(stored: Record<string, unknown>, receipt: object): { content: 'matches_stored' | 'differs_from_stored'; fields: FieldEvidence[] } {
  const received = receipt as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(stored), ...Object.keys(received)])];
  const fields = keys.map((key) => compareField(key, stored[key], received[key], 'stored_receipt'));
  return { content: fields.every((entry) => entry.match) ? 'matches_stored' : 'differs_from_stored', fields };
}

/**
 * A receipt's network facts against this gateway's registry: the network must be one of its own, and
 * its chain id and USDC address must be that network's.
 *
 * @param networks - The registry.
 * @param receipt - The receipt's `network` (CAIP-2), `chainId` and `asset`.
 * @returns The evidence.
 * @example
 * ```ts
 * import { networkFields } from '@tollgate/core/gateway';
 * const fields = networkFields(registry, receipt);
 * ```
 */
export function networkFields(networks: NetworkRegistry, receipt: { network: string; chainId: number; asset: string }): FieldEvidence[] {
  const network = networks.byCaip2(receipt.network);
  const fields = [compareField('network', network?.caip2 ?? 'a network of this gateway', receipt.network, 'network')];
  if (network !== undefined) fields.push(compareField('chainId', network.chainId, receipt.chainId, 'network'), compareField('asset', network.usdc.address, receipt.asset, 'network'));
  return fields;
}
