import { chainRead } from '../../chain/errors';
import { randomId } from '../../crypto/random';
import { GatewayError } from '../../errors/gateway';
import { PaymentVerificationError } from '../../x402/errors';
import { decodePaymentSignatureHeader, encodeX402Header } from '../../x402/headers';
import { extractPaymentIdentifier } from '../../x402/payment-identifier';
import type { PaymentPayload } from '../../x402/wire';
import type { GatewayNetwork } from '../networks';
import type { EvidenceScan, PaymentClaimOutcome, PaymentRecord } from '../store/payment-records';
import { createPaymentChecks } from './payment-checks';
import { paymentClaim, type PaymentContext, type PaymentContexts } from './payment-context';
import type { PaymentDeps, PaymentSettings } from './payment-deps';
import { createPaymentEvidence, type EvidenceTarget, type SettlementEvidenceVerdict } from './payment-evidence';
import { assertSamePaymentOrTwin, identifyPayment, paymentConflict, type PaymentIdentity } from './payment-identity';
import type { ReceiptIssuer } from './receipt-issuer';
import type { SettlementRecovery } from './recovery';
import { recoveryAnswers, type RecoveryResult } from './recovery-result';

export type { RecoveryResult } from './recovery-result';

/** A request to recover a settlement (the validated body of `POST /recover-settlement`). */
export interface RecoverSettlementRequest {
  readonly refId: string;
  /** The payment as the payer sent it: the `PAYMENT-SIGNATURE` header value, or its decoded JSON object. */
  readonly paymentPayload: string | Readonly<Record<string, unknown>>;
  /** A transaction the caller believes holds the transfer: a hint checked on chain, never trusted. */
  readonly txHash?: string;
  /** A Tollgate offer the caller holds: it must verify as this gateway's offer for this payment. */
  readonly signedOffer?: unknown;
  /**
   * For a payment this gateway holds no record of: the search reads forward from this block (at most one
   * scan budget of blocks) instead of back from the head; use it for a transfer mined long ago.
   */
  readonly fromBlock?: number;
  /**
   * The merchant asking, under the `merchant` evidence policy: only its own refs are recovered, and
   * another merchant's ref is `not_found` exactly like an unknown one. Anyone may ask when absent.
   */
  readonly merchantId?: string;
}

/** Recovers the answer of a settlement from the gateway's records and chain evidence; never settles. */
export interface SettlementRecoveryService {
  /**
   * Re-verifies the payload against the ref (see {@link createSettlementRecoveryService} for when), then
   * answers from the gateway's record, or from the chain, recording what the chain shows.
   *
   * @throws X402HeaderError / PaymentVerificationError / GatewayError `payment_verification_failed` (the
   *   payload does not verify against this ref, or belongs to another ref), `not_found` (no such ref),
   *   `invalid_request` (an open ref's amount is malformed), `conflict` (the payment id or authorization
   *   belongs to another payload), `ref_expired` / `ref_revoked` / `payto_revoked` (as settlement refuses
   *   them), `rpc_unavailable` (the chain cannot be read, or no RPC serves the network).
   */
  recover(request: RecoverSettlementRequest): Promise<RecoveryResult>;
}

/** What the service needs: the payment dependencies without the facilitator (it never settles). */
export type SettlementRecoveryServiceDeps = Omit<PaymentDeps, 'facilitator'> & {
  readonly contexts: PaymentContexts;
  readonly issuer: ReceiptIssuer;
  readonly recovery: SettlementRecovery;
};

const emptyScan: EvidenceScan = { windowLow: null, windowHigh: null, scanned: null };

/**
 * Where a search without a record starts. By default the newest blocks first, then back toward the
 * authorization's `validAfter`, within one attempt's budget: a transfer mined longer ago than the budget
 * reaches is never found that way, since nothing is recorded between calls. With `fromBlock`, the search
 * walks forward from it instead (told the empty range just below it is done), so the caller can point it
 * at an old transfer; blocks before `fromBlock` are not read.
 */
function scanFrom(fromBlock: number | undefined): EvidenceScan {
  if (fromBlock === undefined) return emptyScan;
  const low = BigInt(fromBlock);
  return { windowLow: low, windowHigh: null, scanned: { low, high: low - 1n } };
}

function rpcUnavailable(reason: string): GatewayError {
  const message = reason === 'no_rpc' ? 'No chain RPC is configured for this network; recovery reads the chain.' : 'The chain cannot be read right now; retry later.';
  return new GatewayError('rpc_unavailable', message, { details: { reason }, retryAfterSeconds: 5 });
}

/**
 * Creates `/recover-settlement`'s service (gateway.md "Recovery request", Rule 3). It has no facilitator,
 * so it cannot call settle. In order:
 *
 * 1. The payload is decoded like a `PAYMENT-SIGNATURE` header and resolved against the ref (`not_found`,
 *    and for an open ref the payload's `accepted.amount`); its `resource` must name this ref; a
 *    `signedOffer` must be this gateway's offer for these terms (its expiry is not judged: recovery comes
 *    after the fact).
 * 2. **A record exists** (by payment id, else by authorization): as settlement answers an earlier
 *    submission, it must be this payload (`conflict` otherwise) for this ref and amount
 *    (`payment_verification_failed`, reason `other_ref`); the payload passed the checks when it was
 *    recorded, and its fingerprint proves it is that payload. One exception: a *settled* payment's
 *    answer also goes to another payload of the same authorization whose signed terms verify for this
 *    ref and amount (a stranger can rebuild it from the settling calldata and record it first under its
 *    own payment id; that must not lock the payer out of its receipt). Then: a
 *    final payment answers its stored answer, byte for byte; a claim whose holder died is relieved
 *    (`pending` or released); a `pending` or `processing` payment asks the chain (the `txHash` hint first,
 *    then the payment's own search) and records what it shows — a transfer for either, a failure only for
 *    a `pending` one (a live holder finishes its own) — else answers `pending`.
 * 3. **No record**: the chain is asked (hint first, then a search forward from `fromBlock`, else from the
 *    newest blocks back toward the authorization's `validAfter`, within the configured span and scan
 *    budget). A transfer mined at time
 *    T: the settlement checks run at T − `minValiditySeconds` (the last moment settlement could have
 *    accepted it for that block) with today's statuses, the transfer must not predate the ref, and the
 *    payment is claimed (with its settle mark, so nothing ever settles it) and completed with its receipt.
 *    No transfer: the checks run at now, clamped into the authorization's validity, and the answer is
 *    `not_settled` (or `pending` when the nonce is used but its event was not found in the blocks read).
 *
 * Safe to repeat and to run concurrently (every write is a store transition where the first wins).
 *
 * @param deps - Payment dependencies without a facilitator, plus the context resolver, issuer and recovery.
 * @param settings - Payment settings (spans, deadlines, validity bounds).
 * @returns The service.
 *
 * @example
 * ```ts
 * import { createSettlementRecoveryService } from '@tollgate/core/gateway';
 * const service = createSettlementRecoveryService({ ...deps, contexts, issuer, recovery }, settings);
 * const result = await service.recover({ refId, paymentPayload: header });
 * ```
 */
export function createSettlementRecoveryService(deps: SettlementRecoveryServiceDeps, settings: PaymentSettings): SettlementRecoveryService {
  const { contexts, recovery } = deps;
  const { refs, payments } = deps.stores;
  const checks = createPaymentChecks(deps, settings);
  const evidence = createPaymentEvidence(deps, settings);
  const answers = recoveryAnswers(deps.issuer, settings);
  const nowSeconds = () => Math.floor(deps.clock.now() / 1000);

  async function resolveContext(refId: string, payload: PaymentPayload, merchantId: string | undefined): Promise<PaymentContext> {
    const ref = await refs.getRef(refId);
    // Another merchant's ref answers as an unknown one: a merchant cannot probe which refs exist.
    if (ref === undefined || (merchantId !== undefined && ref.merchantId !== merchantId)) throw new GatewayError('not_found', 'No such ref.', { details: { refId } });
    // An open ref's amount is the one the payer accepted; verification then checks the authorization moves it.
    const query: Record<string, string> = ref.amount === null ? { ref: refId, amount: payload.accepted.amount } : { ref: refId };
    // A refund ref names the receipt it pays back itself (the resolver still refuses it outside order mode).
    if (ref.kind === 'refund' && ref.refundOf !== null) query['refundOf'] = ref.refundOf;
    return contexts.resolve({ payTo: ref.payTo, query });
  }

  const hasChain = (target: EvidenceTarget) => {
    const network = deps.networks.byName(target.network);
    return network !== undefined && deps.chain?.(network) !== undefined;
  };

  async function verdictOf(target: EvidenceTarget, hint: string | undefined, search: () => Promise<SettlementEvidenceVerdict>): Promise<SettlementEvidenceVerdict> {
    if (hint !== undefined) {
      const confirmation = await evidence.confirmTransfer(target, hint);
      if (confirmation.status === 'confirmed') return { status: 'settled', txHash: hint, blockNumber: confirmation.blockNumber };
      // The chain could not be read: a search would wait out another deadline to say the same.
      if (confirmation.status === 'unavailable') return { status: 'unknown', reason: hasChain(target) ? 'rpc_unavailable' : 'no_rpc' };
    }
    return search();
  }

  /** A payment the gateway holds: its stored answer, or what the chain now shows; `undefined` once released. */
  async function fromRecord(found: PaymentRecord, hint: string | undefined, network: GatewayNetwork): Promise<RecoveryResult | undefined> {
    let payment = found;
    if (payment.answer === null && payment.state === 'processing' && payment.leaseUntil !== null && payment.leaseUntil.getTime() <= deps.clock.now()) {
      // Its holder died: relieved as the sweep would (settle started → pending; never started → released).
      const relief = await recovery.relieve(payment);
      if (relief.kind === 'released' || relief.payment === undefined) return undefined;
      payment = relief.payment;
    }
    if (payment.answer !== null) return answers.final(payment, payment.answer);
    const current = payment;
    const verdict = await verdictOf(current, hint, () => recovery.inspect(current));
    // A live claim holder records its own failures; a transfer on chain is recorded for anyone.
    if (verdict.status === 'settled' || (verdict.status === 'failed' && current.state === 'pending')) payment = await recovery.apply(current, verdict);
    if (payment.answer !== null) return answers.final(payment, payment.answer);
    if (verdict.status !== 'unknown' || payment.state === 'processing') return answers.pending(payment, 'in_progress', network);
    if (verdict.reason === 'rpc_unavailable' || verdict.reason === 'no_rpc') throw rpcUnavailable(verdict.reason);
    return answers.pending(payment, verdict.reason, network);
  }

  /** A record for this payload's identity: it must be this payload, for this ref and amount. */
  async function recorded(found: PaymentRecord, request: RecoverSettlementRequest, context: PaymentContext, identity: PaymentIdentity, payload: PaymentPayload) {
    // A settled payment's answer also goes to a twin rebuilt from its calldata (see isSettledTwin).
    const twinCheck = { nowSeconds: nowSeconds(), settings, secp256k1: deps.secp256k1 };
    if (assertSamePaymentOrTwin(found, identity, payload, context, twinCheck) === 'twin' && found.answer !== null) return answers.final(found, found.answer);
    if (found.refId !== context.ref.id || found.amount !== context.amount) {
      throw new PaymentVerificationError('refId', 'other_ref', 'This payment was made for another ref or amount.', { details: { paymentId: found.paymentId } });
    }
    return fromRecord(found, request.txHash, context.network);
  }

  async function blockTime(context: PaymentContext, blockNumber: bigint): Promise<number> {
    const client = deps.chain?.(context.network);
    if (client === undefined) throw rpcUnavailable('no_rpc');
    const block = await chainRead('eth_getBlockByNumber', settings.evidenceTimeoutMs, () => client.getBlock({ blockNumber }));
    return Number(block.timestamp);
  }

  /**
   * Claims a payment the chain shows settled (mined at `minedAt`, Unix seconds), with its settle mark
   * (nothing ever settles it), or finds its holder.
   */
  async function claimSettled(identity: PaymentIdentity, context: PaymentContext, minedAt: number): Promise<PaymentClaimOutcome & { kind: 'claimed' | 'existing' }> {
    const now = deps.clock.now();
    // The block time lets the claim through a revocation (or retirement) that came after the transfer.
    const claim = paymentClaim(identity, context, { leaseToken: randomId(), now, leaseMs: settings.leaseMs, settleStarted: true });
    const claimed = await payments.claimPayment({ ...claim, minedAt: new Date(minedAt * 1000) });
    // Another payment holds this single-payment ref: this transfer is not its payment (it is recorded nowhere).
    if (claimed.kind === 'ref_used') throw paymentConflict(identity.paymentId, 'ref_used');
    if (claimed.kind !== 'not_payable') return claimed;
    // The statuses the checks saw were stale: refuse exactly as a fresh read would.
    contexts.assertPayable({ ...context, refStatus: claimed.status?.refStatus ?? 'revoked', payToStatus: claimed.status?.payToStatus ?? context.payToStatus }, nowSeconds());
    throw new GatewayError('not_found', 'No such ref.', { details: { refId: context.ref.id } });
  }

  /**
   * The context as it stood when the transfer was mined (`minedAt`, Unix seconds): a ref revoked at or
   * after that time was still open for it (revoking blocks future payments; it never un-records a mined
   * one: an order cancelled, or a refund rejected, after its transfer executed on chain directly).
   */
  async function asWhenMined(context: PaymentContext, minedAt: number): Promise<PaymentContext> {
    if (context.refStatus !== 'revoked') return context;
    const revokedAt = (await refs.getRef(context.ref.id))?.revokedAt ?? null;
    return revokedAt !== null && revokedAt.getTime() >= minedAt * 1000 ? { ...context, refStatus: 'active' } : context;
  }

  /** No record: the chain decides; a transfer it shows is recorded, with its receipt. */
  async function unrecorded(request: RecoverSettlementRequest, payload: PaymentPayload, context: PaymentContext, identity: PaymentIdentity, again: boolean): Promise<RecoveryResult> {
    const target: EvidenceTarget = { ...identity, network: context.network.name, payTo: context.ref.payTo, amount: context.amount };
    const verdict = await verdictOf(target, request.txHash, async () => (await evidence.lookup(target, scanFrom(request.fromBlock))).verdict);
    if (verdict.status === 'unknown' && (verdict.reason === 'rpc_unavailable' || verdict.reason === 'no_rpc')) throw rpcUnavailable(verdict.reason);
    if (verdict.status !== 'settled') {
      const latestAcceptable = BigInt(identity.validBefore) - BigInt(settings.minValiditySeconds);
      checks.verify(payload, context, latestAcceptable < BigInt(nowSeconds()) ? Number(latestAcceptable) : nowSeconds());
      if (verdict.status === 'failed') return answers.notSettled(identity, verdict.reason, verdict.txHash);
      if (verdict.reason === 'not_yet_on_chain') return answers.notSettled(identity, verdict.reason, null);
      return answers.pending({ ...identity, txHash: null }, verdict.reason === 'searching' ? 'searching' : 'evidence_missing', context.network);
    }
    const minedAt = await blockTime(context, verdict.blockNumber);
    // Block times are whole seconds: a transfer mined in the second the ref was created may be its payment.
    if (minedAt < Math.floor(context.ref.createdAt.getTime() / 1000)) {
      throw new PaymentVerificationError('refId', 'transfer_before_ref', 'The transfer was mined before this ref existed; it cannot be a payment for it.');
    }
    checks.verify(payload, await asWhenMined(context, minedAt), minedAt - settings.minValiditySeconds);
    const claimed = await claimSettled(identity, context, minedAt);
    if (claimed.kind === 'existing') {
      // Someone recorded it meanwhile (a settlement or another recovery): answered as a record.
      const answer = await recorded(claimed.payment, request, context, identity, payload);
      if (answer !== undefined || again) return answer ?? answers.pending({ ...identity, txHash: verdict.txHash }, 'in_progress', context.network);
      return unrecorded(request, payload, context, identity, true);
    }
    deps.onEvent?.({ type: 'claimed', paymentId: claimed.payment.paymentId, refId: context.ref.id, reason: 'recover_settlement' });
    const payment = await recovery.apply(claimed.payment, verdict);
    return payment.answer === null ? answers.pending(payment, 'in_progress', context.network) : answers.final(payment, payment.answer);
  }

  return {
    async recover(request) {
      const payload = decodePaymentSignatureHeader(typeof request.paymentPayload === 'string' ? request.paymentPayload : encodeX402Header(request.paymentPayload));
      const context = await resolveContext(request.refId, payload, request.merchantId);
      // Before any read: a payload naming another ref's receive URL is another ref's.
      checks.verifyResource(payload, context);
      if (request.signedOffer !== undefined) checks.verifyOffer(request.signedOffer, context, undefined);
      const identity = identifyPayment(payload, context.network.chainId, extractPaymentIdentifier(payload));
      if (identity === undefined) {
        checks.verify(payload, context, nowSeconds());
        throw new PaymentVerificationError('payload', 'malformed', 'The EIP-3009 payload is malformed.');
      }
      const found = await payments.findPayment(identity);
      const answer = found === undefined ? undefined : await recorded(found, request, context, identity, payload);
      return answer ?? unrecorded(request, payload, context, identity, found !== undefined);
    },
  };
}
