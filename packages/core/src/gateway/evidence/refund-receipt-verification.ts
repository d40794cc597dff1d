import * as v from 'valibot';
import type { Address, Hash, Hex } from 'viem';
import { GatewayError } from '../../errors/gateway';
import { paymentReceiptSchema, receiptHash, type PaymentReceipt } from '../../x402/receipt';
import type { RefundReceipt, RejectedRefundReceipt } from '../../x402/refund-receipt';
import { readRefundReceipt } from '../../x402/refund-receipt-verify';
import { issuePath } from '../../x402/wire';
import { createBoundedCache } from '../payments/bounded-cache';
import type { OrderStore } from '../store/order-store';
import { notVisible, viewerOwns, type EvidenceViewer } from './evidence-viewer';
import type { ChainReport } from './receipt-chain-check';
import { compareField, compareWithStored, networkFields, storedReceiptOf, type EvidenceSource, type FieldEvidence } from './receipt-context';
import { createSignerJudge, observeTransfer, receiptRefused, type ReceiptVerifierDeps, type SignatureReport } from './receipt-verification';

/** A `POST /verify-refund-receipt` request after validation. */
export interface VerifyRefundReceiptRequest {
  readonly signedReceipt: string;
  /** A refund receipt (`x402.refund.receipt`) or a rejected-refund receipt (`x402.refund.rejected`), untrusted. */
  readonly receipt: unknown;
  /** The original payment's Tollgate receipt, when the caller has it: the binding is then checked against it. */
  readonly originalReceipt?: unknown;
  readonly minConfirmations: number;
  readonly viewer: EvidenceViewer;
}

/** One checked field of a refund receipt (sources include `original_receipt` and `refund_intent`). */
export type RefundFieldEvidence = Omit<FieldEvidence, 'source'> & { readonly source: EvidenceSource };

/**
 * Whether the refund receipt says what was signed and is bound to the original payment:
 * - `content`: as for `/verify-receipt` (`signed`, or the stored receipt decides when the signature fails);
 * - `binding`: what `refundOf` and the parties were checked against — `original_receipt` (the request's:
 *   `refundOf` is its hash, `from`/`to` are its `payTo`/`payer` swapped, same network and asset, the
 *   amount at most the original's), `refund_intent` (the intent this gateway stored for the refund ref),
 *   or `signed_only` (neither is at hand: only the gateway's signature vouches for the binding);
 * - `fields`: every comparison made, mismatches included.
 */
export interface RefundContextReport {
  readonly valid: boolean;
  readonly content: 'signed' | 'matches_stored' | 'differs_from_stored' | 'unverifiable';
  readonly binding: 'original_receipt' | 'refund_intent' | 'signed_only';
  readonly fields: readonly RefundFieldEvidence[];
}

/**
 * The answer of `POST /verify-refund-receipt`: the three parts of `/verify-receipt`. A paid refund is
 * `verified` when its signature and context are valid and the chain shows its reverse transfer confirmed; a
 * rejected refund moved nothing, so it has no chain part (`chain: null`) and is `verified` on signature and
 * context alone.
 */
export interface RefundReceiptVerification {
  readonly verified: boolean;
  readonly kind: 'refund' | 'rejected_refund';
  readonly receiptHash: string;
  /** The original receipt the refund names (`sha256:<hash>`). */
  readonly refundOf: string;
  readonly signature: SignatureReport;
  readonly context: RefundContextReport;
  readonly chain: ChainReport | null;
}

/** `POST /verify-refund-receipt` as a service. */
export interface RefundReceiptVerifier {
  /**
   * Verifies a refund receipt's signature, binding and (for a paid refund) the reverse transfer on chain.
   *
   * @throws GatewayError `receipt_invalid` (malformed receipt or original receipt: `details.reason:
   *   'malformed_receipt'`; signature or context not holding: `details.signature`/`details.context`),
   *   `not_found` for a merchant viewer's foreign receipt, ChainReadError `rpc_unavailable`.
   */
  verify(request: VerifyRefundReceiptRequest): Promise<RefundReceiptVerification>;
}

/** Dependencies of {@link createRefundReceiptVerifier}: those of the receipt verifier, plus the order store when order mode is on. */
export type RefundReceiptVerifierDeps = Omit<ReceiptVerifierDeps, 'publicUrl' | 'stores'> & {
  readonly stores: Pick<ReceiptVerifierDeps['stores'], 'payments'> & { readonly orders?: OrderStore | undefined };
};

function malformed(field: string, message: string): GatewayError {
  return new GatewayError('receipt_invalid', `The receipt is malformed at ${field}: ${message}.`, { details: { reason: 'malformed_receipt', field } });
}

/** The original receipt, when given: a Tollgate payment receipt (its signature is not needed: `refundOf` is its hash). */
function parseOriginal(input: unknown): PaymentReceipt | undefined {
  if (input === undefined) return undefined;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw malformed('originalReceipt', 'expected a payment receipt object');
  const parsed = v.safeParse(paymentReceiptSchema, input);
  if (parsed.success) return parsed.output as PaymentReceipt;
  const path = issuePath(parsed.issues);
  throw malformed(path === '' ? 'originalReceipt' : `originalReceipt.${path}`, parsed.issues[0]?.message ?? 'invalid');
}

/** A refunded amount may be part of the original: at most it, never more. */
function atMost(limit: string, found: string | undefined, source: EvidenceSource): RefundFieldEvidence {
  return { field: 'amount', expected: { atMost: limit }, found: found ?? null, match: found !== undefined && BigInt(found) <= BigInt(limit), source };
}

/** The binding of either refund receipt to the original receipt: `refundOf`, parties swapped, same network and asset. */
function bindingToOriginal(receipt: RefundReceipt | RejectedRefundReceipt, original: PaymentReceipt): RefundFieldEvidence[] {
  const source = 'original_receipt';
  const paid = receipt.type === 'x402.refund.receipt';
  return [
    compareField('refundOf', `sha256:${receiptHash(original)}`, receipt.refundOf, source),
    paid ? compareField('from', original.payTo, receipt.from, source) : compareField('originalPayTo', original.payTo, receipt.originalPayTo, source),
    paid ? compareField('to', original.payer, receipt.to, source) : compareField('originalPayer', original.payer, receipt.originalPayer, source),
    compareField('network', original.network, receipt.network, source),
    compareField('asset', original.asset, receipt.asset, source),
    ...(paid || receipt.amount !== undefined ? [atMost(original.amount, receipt.amount, source)] : []),
  ];
}

/**
 * Creates the refund receipt verifier, over the evidence code of `/verify-receipt`: the same accepted
 * signers (current and previous receipt keys), the same stored-receipt comparison when a signature fails,
 * the same network checks, and the same chain judgement (with the refund's `from` as the authorizer and
 * `to` as the recipient). Check order: form, who may see it (merchant policy: the refund's payer, i.e. the
 * original payTo, must be the merchant's), signature, context, chain. Under the merchant policy the
 * stored receipt and the refund intent the context compares with are used only when they are the
 * viewer's too: another merchant's are treated as absent, never shown.
 *
 * @param deps - Registry, chain access, stores (payments; orders in order mode), accepted signers, cache size.
 * @returns The verifier.
 * @example
 * ```ts
 * import { anyoneViewer, createRefundReceiptVerifier } from '@tollgate/core/gateway';
 * const verifier = createRefundReceiptVerifier({ registry, networks, observer, stores, currentSigner, previousSigners: [], cacheSize: 4_096 });
 * const result = await verifier.verify({ signedReceipt, receipt, originalReceipt, minConfirmations: 1, viewer: anyoneViewer });
 * ```
 */
export function createRefundReceiptVerifier(deps: RefundReceiptVerifierDeps): RefundReceiptVerifier {
  const judgeSigner = createSignerJudge(deps);
  const read = createBoundedCache<ReturnType<typeof readRefundReceipt>>(deps.cacheSize);

  /** Recovery is cached by content and signature (a final fact); acceptance is judged on every request. */
  function readCached(signedReceipt: string, receipt: unknown) {
    const key = `${JSON.stringify(receipt) ?? ''}|${signedReceipt.toLowerCase()}`;
    const cached = read.get(key);
    if (cached !== undefined) return cached;
    const fresh = readRefundReceipt(signedReceipt, receipt);
    if (key.length <= 8_192) read.set(key, fresh);
    return fresh;
  }

  /**
   * Without the original: the paid refund's stored intent, when the viewer may see it (its payTo is the
   * viewer's). The refund ref is no secret and this runs whatever the signature says, so a merchant's
   * forged receipt could name another merchant's ref: that intent is treated as absent (`signed_only`),
   * the same answer as for a ref that does not exist.
   */
  async function bindingToIntent(receipt: RefundReceipt, viewer: EvidenceViewer): Promise<RefundFieldEvidence[] | undefined> {
    const intent = await deps.stores.orders?.getRefundByRef(receipt.refId);
    if (intent === undefined || !viewerOwns(viewer, intent.payTo)) return undefined;
    const source = 'refund_intent';
    return [
      compareField('refundId', intent.id, receipt.refundId, source),
      compareField('orderId', intent.orderId, receipt.orderId, source),
      compareField('refundOf', intent.originalReceiptHash, receipt.refundOf, source),
      compareField('from', intent.payTo, receipt.from, source),
      compareField('to', intent.payer, receipt.to, source),
      compareField('network', deps.registry.byName(intent.network)?.caip2 ?? intent.network, receipt.network, source),
      compareField('amount', intent.amount, receipt.amount, source),
    ];
  }

  return {
    async verify(request) {
      const parsed = readCached(request.signedReceipt, request.receipt);
      if (!parsed.ok) throw malformed(parsed.field === 'receipt' ? 'receipt' : `receipt.${parsed.field}`, parsed.field === 'type' ? 'expected "x402.refund.receipt" or "x402.refund.rejected"' : 'invalid');
      const original = parseOriginal(request.originalReceipt);
      const { receipt } = parsed;
      const paid = receipt.type === 'x402.refund.receipt';
      if (!viewerOwns(request.viewer, paid ? receipt.from : receipt.originalPayTo)) throw notVisible('refund receipt');

      const signature = judgeSigner(parsed.signer);
      const fields: RefundFieldEvidence[] = [];
      let content: RefundContextReport['content'] = signature.valid ? 'signed' : 'unverifiable';
      if (!signature.valid && paid) {
        const stored = await storedReceiptOf(deps.stores.payments, { paymentId: receipt.paymentId, chainId: receipt.chainId, payer: receipt.from, nonce: receipt.authorizationNonce }, request.viewer);
        if (stored !== undefined) {
          const compared = compareWithStored(stored, receipt);
          fields.push(...compared.fields);
          content = compared.content;
        }
      }
      fields.push(...networkFields(deps.registry, receipt));
      let binding: RefundContextReport['binding'] = 'signed_only';
      if (original !== undefined) {
        fields.push(...bindingToOriginal(receipt, original));
        binding = 'original_receipt';
      } else if (paid) {
        const intentFields = await bindingToIntent(receipt, request.viewer);
        if (intentFields !== undefined) {
          fields.push(...intentFields);
          binding = 'refund_intent';
        }
      }
      const valid = (content === 'signed' || content === 'matches_stored') && fields.every((entry) => entry.match);
      const context: RefundContextReport = { valid, content, binding, fields };
      const kind = paid ? 'refund' : 'rejected_refund';
      if (!signature.valid || !valid) throw receiptRefused(signature, context, { kind, receiptHash: parsed.receiptHash });

      const base = { kind, receiptHash: parsed.receiptHash, refundOf: receipt.refundOf, signature, context } as const;
      if (!paid) return { verified: true, ...base, chain: null };
      const chain = await observeTransfer(
        deps,
        {
          network: receipt.network,
          txHash: receipt.txHash.toLowerCase() as Hash,
          payer: receipt.from as Address,
          payTo: receipt.to as Address,
          amount: receipt.amount,
          nonce: receipt.authorizationNonce.toLowerCase() as Hex,
          termsSource: 'receipt',
        },
        request.minConfirmations,
      );
      return { verified: chain.confirmed, ...base, chain };
    },
  };
}
