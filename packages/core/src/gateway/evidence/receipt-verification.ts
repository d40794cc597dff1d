import { getAddress, isAddressEqual, type Address } from 'viem';
import { GatewayError } from '../../errors/gateway';
import type { NetworkRegistry } from '../networks';
import { createBoundedCache } from '../payments/bounded-cache';
import type { GatewayStores } from '../store/gateway-stores';
import type { EvidenceNetworks } from './evidence-networks';
import { notVisible, viewerOwns, type EvidenceViewer } from './evidence-viewer';
import { judgeReceiptTransaction, type ChainReport, type ExpectedTransfer } from './receipt-chain-check';
import { receiptContext, refOfResource, type ContextReport, type ReceiptExpectations, type ReceiptRef } from './receipt-context';
import { readIssuedReceipt, receiptClaims, type IssuedReceipt } from './receipt-forms';
import type { TxObserver } from './tx-observation';

/** A `POST /verify-receipt` request after validation. */
export interface VerifyReceiptRequest extends ReceiptExpectations {
  readonly signedReceipt: string;
  readonly receipt: unknown;
  readonly minConfirmations: number;
  readonly viewer: EvidenceViewer;
}

/**
 * Who signed: `valid` when the signature recovers to the current receipt key (`role: 'current'`) or to
 * one the operator still lists from before a rotation (`previous`). `reason` says why not otherwise.
 */
export interface SignatureReport {
  readonly valid: boolean;
  readonly signer: Address | null;
  readonly role: 'current' | 'previous' | null;
  readonly reason: 'accepted' | 'unknown_signer' | 'unrecoverable' | 'artifact_signature_differs';
}

/** The answer of `POST /verify-receipt` (a valid signature and context; the chain part is a result, not an error). */
export interface ReceiptVerification {
  /** True only when the signature and context are valid and the chain shows the transfer `confirmed`. */
  readonly verified: boolean;
  readonly kind: IssuedReceipt['kind'];
  /** The Tollgate receipt's `receiptHash` (what `refundOf=sha256:<hash>` names). */
  readonly receiptHash?: string;
  readonly signature: SignatureReport;
  readonly context: ContextReport;
  readonly chain: ChainReport;
}

/** `POST /verify-receipt` as a service. */
export interface ReceiptVerifier {
  /**
   * Verifies a receipt's signature, context and chain evidence.
   *
   * @throws GatewayError `receipt_invalid` (422) when the receipt is malformed, its signature is not an
   *   accepted key's, or its context does not hold; `details` carries `signature` and `context` with the
   *   field evidence. `not_found` for a merchant viewer's foreign receipt. ChainReadError `rpc_unavailable`.
   */
  verify(request: VerifyReceiptRequest): Promise<ReceiptVerification>;
}

/** Dependencies of {@link createReceiptVerifier}. */
export interface ReceiptVerifierDeps {
  readonly registry: NetworkRegistry;
  readonly networks: EvidenceNetworks;
  readonly observer: TxObserver;
  readonly stores: Pick<GatewayStores, 'payments' | 'refs'>;
  /** This gateway's origin (x402 receipts name a ref through their resource URL). */
  readonly publicUrl: () => string;
  /** The current receipt signer, when this gateway signs receipts. */
  readonly currentSigner: Address | undefined;
  readonly previousSigners: readonly Address[];
  readonly cacheSize: number;
}

/**
 * Creates the receipt verifier. Check order: the receipt's form (malformed → `receipt_invalid`), who may
 * see it (merchant policy), the signature, the context (a signature that does not verify makes the
 * stored receipt of the same payment the judge of each field, when the viewer may see that stored
 * receipt too), then the chain, read from the current
 * canonical chain every time (a reorganised-out transaction is `pending` or `not_found`, never confirmed).
 * Caches: recovered signers by receipt content and signature (final), final transactions (the observer's).
 *
 * @param deps - Registry, chain access, stores, origin, accepted signers, cache size.
 * @returns The verifier.
 * @example
 * ```ts
 * import { anyoneViewer, createReceiptVerifier } from '@tollgate/core/gateway';
 * const verifier = createReceiptVerifier({ registry, networks, observer, stores, publicUrl: () => origin, currentSigner, previousSigners: [], cacheSize: 4_096 });
 * const result = await verifier.verify({ signedReceipt, receipt, minConfirmations: 1, viewer: anyoneViewer });
 * ```
 */
export function createReceiptVerifier(deps: ReceiptVerifierDeps): ReceiptVerifier {
  const signers = createBoundedCache<Address | null>(deps.cacheSize);
  const judgeSigner = createSignerJudge(deps);

  function signatureOf(issued: IssuedReceipt, signedReceipt: string): SignatureReport {
    if (issued.kind === 'x402' && issued.artifactSignature !== undefined && issued.artifactSignature.toLowerCase() !== signedReceipt.toLowerCase()) {
      return { valid: false, signer: issued.signer, role: null, reason: 'artifact_signature_differs' };
    }
    return judgeSigner(issued.signer);
  }

  return {
    async verify(request) {
      const issued = readIssuedReceipt(request.signedReceipt, request.receipt, signers);
      const claims = receiptClaims(issued);
      const ref: ReceiptRef | undefined = issued.kind === 'x402' ? await refOfResource(issued.payload.resourceUrl, deps.publicUrl(), deps.stores.refs) : undefined;
      const visible =
        request.viewer.kind === 'anyone' || (issued.kind === 'tollgate' ? viewerOwns(request.viewer, issued.receipt.payTo) : ref?.ref.merchantId === request.viewer.merchantId);
      if (!visible) throw notVisible('receipt');

      const signature = signatureOf(issued, request.signedReceipt);
      const context = await receiptContext({ issued, signatureValid: signature.valid, expectations: request, networks: deps.registry, payments: deps.stores.payments, viewer: request.viewer, ref });
      const receiptHash = issued.kind === 'tollgate' ? { receiptHash: issued.receiptHash } : {};
      if (!signature.valid || !context.valid) throw receiptRefused(signature, context, { kind: issued.kind, ...receiptHash });

      const termsSource = issued.kind === 'tollgate' ? 'receipt' : ref !== undefined ? 'ref' : 'request';
      const payTo = claims.payTo ?? (ref === undefined ? request.expectedPayTo : getAddress(ref.ref.payTo));
      const amount = claims.amount ?? ref?.ref.amount ?? request.expectedAmount;
      const chain = await observeTransfer(deps, { ...claims, payTo, amount, termsSource }, request.minConfirmations);
      return { verified: chain.confirmed, kind: issued.kind, ...receiptHash, signature, context, chain };
    },
  };
}

/**
 * The signature judge of the receipt routes: `accepted` when a recovered signer is the current receipt
 * key (`role: 'current'`) or one the operator still lists from before a rotation (`previous`).
 * `/verify-receipt` and `/verify-refund-receipt` judge with the same keys.
 *
 * @param keys - The current signer (when this gateway signs receipts) and the previous ones.
 * @returns A function from the recovered signer (`null`: the signature did not recover) to its report.
 * @example
 * ```ts
 * import { createSignerJudge } from '@tollgate/core/gateway';
 * const judge = createSignerJudge({ currentSigner: gatewayAddress, previousSigners: [] });
 * judge(recovered).valid;
 * ```
 */
export function createSignerJudge(keys: Pick<ReceiptVerifierDeps, 'currentSigner' | 'previousSigners'>): (signer: Address | null) => SignatureReport {
  const previous = keys.previousSigners.map((address) => getAddress(address));
  return (signer) => {
    if (signer === null) return { valid: false, signer, role: null, reason: 'unrecoverable' };
    const role = keys.currentSigner !== undefined && isAddressEqual(signer, keys.currentSigner) ? 'current' : previous.some((entry) => isAddressEqual(entry, signer)) ? 'previous' : null;
    return { valid: role !== null, signer, role, reason: role === null ? 'unknown_signer' : 'accepted' };
  };
}

/**
 * The chain part of a receipt verification: the transaction read from the current canonical chain and
 * judged against the expected transfer, or `unchecked` when this gateway has no RPC for the network.
 *
 * @param deps - Registry, chain access and observer.
 * @param expected - The transfer the receipt claims (payer = the authorizer, payTo = the recipient).
 * @param minConfirmations - The confirmation policy.
 * @returns The chain report.
 * @throws ChainReadError `rpc_unavailable`.
 * @example
 * ```ts
 * import { observeTransfer } from '@tollgate/core/gateway';
 * const chain = await observeTransfer(deps, { ...receiptClaims(issued), termsSource: 'receipt' }, 1);
 * ```
 */
export async function observeTransfer(deps: Pick<ReceiptVerifierDeps, 'registry' | 'networks' | 'observer'>, expected: ExpectedTransfer, minConfirmations: number): Promise<ChainReport> {
  const network = deps.registry.byCaip2(expected.network);
  const client = network === undefined ? undefined : deps.networks.clientOf(network);
  if (network === undefined || client === undefined) {
    return { status: 'unchecked', confirmed: false, network: network?.name ?? expected.network, txHash: expected.txHash, confirmations: 0, minConfirmations, blockNumber: null, transfer: null, fields: [] };
  }
  const observation = await deps.observer.observe(network, client, expected.txHash);
  return judgeReceiptTransaction({ network, expected, observation, minConfirmations });
}

/**
 * The `receipt_invalid` refusal of a receipt whose signature or context does not hold: the message names
 * the reason and the differing fields, `details` carries both reports (and `extra`: kind, receipt hash).
 *
 * @param signature - The signature report.
 * @param context - The context report.
 * @param extra - More details.
 * @returns The error to throw.
 * @example
 * ```ts
 * import { receiptRefused } from '@tollgate/core/gateway';
 * if (!signature.valid || !context.valid) throw receiptRefused(signature, context, { kind: 'refund' });
 * ```
 */
export function receiptRefused(
  signature: SignatureReport,
  context: { readonly fields: readonly { readonly field: string; readonly match: boolean }[] },
  extra: Record<string, unknown>,
): GatewayError {
  const differing = context.fields.filter((entry) => !entry.match).map((entry) => entry.field);
  const message = !signature.valid
    ? `The receipt's signature is not this gateway's (${signature.reason}).${differing.length > 0 ? ` Fields that do not match: ${differing.join(', ')}.` : ''}`
    : `The receipt does not match: ${differing.join(', ') || 'its content cannot be proven'}.`;
  return new GatewayError('receipt_invalid', message, { details: { reason: signature.valid ? 'context' : 'signature', ...extra, signature, context } });
}
