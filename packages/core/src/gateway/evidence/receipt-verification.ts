import { getAddress, isAddressEqual, type Address } from 'viem';
import { GatewayError } from '../../errors/gateway';
import type { NetworkRegistry } from '../networks';
import { createBoundedCache } from '../payments/bounded-cache';
import type { GatewayStores } from '../store/gateway-stores';
import type { EvidenceNetworks } from './evidence-networks';
import { notVisible, viewerOwns, type EvidenceViewer } from './evidence-viewer';
import { judgeReceiptTransaction, type ChainReport } from './receipt-chain-check';
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
 * stored receipt of the same payment the judge of each field), then the chain, read from the current
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
  const previous = deps.previousSigners.map((address) => getAddress(address));

  function signatureOf(issued: IssuedReceipt, signedReceipt: string): SignatureReport {
    const { signer } = issued;
    if (issued.kind === 'x402' && issued.artifactSignature !== undefined && issued.artifactSignature.toLowerCase() !== signedReceipt.toLowerCase()) {
      return { valid: false, signer, role: null, reason: 'artifact_signature_differs' };
    }
    if (signer === null) return { valid: false, signer, role: null, reason: 'unrecoverable' };
    const role = deps.currentSigner !== undefined && isAddressEqual(signer, deps.currentSigner) ? 'current' : previous.some((entry) => isAddressEqual(entry, signer)) ? 'previous' : null;
    return { valid: role !== null, signer, role, reason: role === null ? 'unknown_signer' : 'accepted' };
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
      const context = await receiptContext({ issued, signatureValid: signature.valid, expectations: request, networks: deps.registry, payments: deps.stores.payments, ref });
      const receiptHash = issued.kind === 'tollgate' ? { receiptHash: issued.receiptHash } : {};
      if (!signature.valid || !context.valid) {
        const differing = context.fields.filter((entry) => !entry.match).map((entry) => entry.field);
        const message = !signature.valid
          ? `The receipt's signature is not this gateway's (${signature.reason}).${differing.length > 0 ? ` Fields that do not match: ${differing.join(', ')}.` : ''}`
          : `The receipt does not match: ${differing.join(', ') || 'its content cannot be proven'}.`;
        throw new GatewayError('receipt_invalid', message, { details: { reason: signature.valid ? 'context' : 'signature', kind: issued.kind, ...receiptHash, signature, context } });
      }

      const network = deps.registry.byCaip2(claims.network);
      const client = network === undefined ? undefined : deps.networks.clientOf(network);
      const termsSource = issued.kind === 'tollgate' ? 'receipt' : ref !== undefined ? 'ref' : 'request';
      const payTo = claims.payTo ?? (ref === undefined ? request.expectedPayTo : getAddress(ref.ref.payTo));
      const amount = claims.amount ?? ref?.ref.amount ?? request.expectedAmount;
      let chain: ChainReport;
      if (network === undefined || client === undefined) {
        chain = { status: 'unchecked', confirmed: false, network: network?.name ?? claims.network, txHash: claims.txHash, confirmations: 0, minConfirmations: request.minConfirmations, blockNumber: null, transfer: null, fields: [] };
      } else {
        const observation = await deps.observer.observe(network, client, claims.txHash);
        chain = judgeReceiptTransaction({ network, expected: { ...claims, payTo, amount, termsSource }, observation, minConfirmations: request.minConfirmations });
      }
      return { verified: chain.confirmed, kind: issued.kind, ...receiptHash, signature, context, chain };
    },
  };
}
