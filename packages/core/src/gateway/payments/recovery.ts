import { getAddress } from 'viem';
import { chainRead, ChainReadError } from '../../chain/errors';
import { findAuthorizationSettlement } from '../../chain/settlement-evidence';
import { randomId } from '../../crypto/random';
import type { Job } from '../../storage/jobs/job-queue';
import type { PaymentRecord } from '../store/payment-records';
import type { PaymentDeps, PaymentSettings } from './payment-deps';
import type { ReceiptIssuer } from './receipt-issuer';
import type { SettlementRecoveryJob } from './recovery-job';

/** What the chain says about a payment whose settle outcome is unknown. */
export type SettlementEvidenceVerdict =
  | { readonly status: 'settled'; readonly txHash: string; readonly blockNumber: bigint }
  | { readonly status: 'failed'; readonly reason: 'authorization_expired' | 'authorization_canceled' | 'settlement_mismatch'; readonly txHash: string | null }
  | { readonly status: 'unknown'; readonly reason: 'not_yet_on_chain' | 'no_rpc' | 'rpc_unavailable' | 'outside_range' };

/** Finishes payments from chain evidence; never calls the facilitator. */
export interface SettlementRecovery {
  /** Reads the chain about a payment (no writes). */
  inspect(payment: PaymentRecord): Promise<SettlementEvidenceVerdict>;
  /**
   * Finishes a `pending` payment when the chain has the answer: `settled` (receipt, answer and
   * notification recorded in one transaction) or `failed`. Returns the payment as it then stands (still
   * `pending` when the chain cannot tell yet). Other states are returned as they are.
   */
  resolve(payment: PaymentRecord): Promise<PaymentRecord>;
  /**
   * The handler of a `gateway.settlement-recovery` job: resolves the payment. Throws while the payment
   * is still unresolved, so the queue retries it with backoff.
   */
  runJob(job: Job<SettlementRecoveryJob>): Promise<void>;
  /**
   * Relieves claims whose holder died (lease ended at the clock's now): a claim whose settle had started
   * becomes `pending` (with its recovery job: the chain decides, settle is never called again); one whose
   * settle never started is released. Safe on every instance at once (takeovers are atomic).
   *
   * @param limit - Most claims handled per call (default 20).
   * @returns How many claims this call took over.
   */
  sweepAbandoned(limit?: number): Promise<number>;
}

/**
 * Creates the recovery of pending payments. The verdict comes from `findAuthorizationSettlement`
 * (`authorizationState`, then the `AuthorizationUsed` event and the matching `Transfer` to payTo):
 *
 * | chain | verdict |
 * |---|---|
 * | transfer of the amount to payTo | `settled` with its hash and block |
 * | authorization canceled | `failed`, `authorization_canceled` |
 * | nonce used by a transfer to another payee or amount | `failed`, `settlement_mismatch` |
 * | nonce unused and the head block's timestamp ≥ `validBefore` | `failed`, `authorization_expired` (no later block can execute it) |
 * | nonce unused before `validBefore`, RPC down, no RPC configured | still pending |
 *
 * The head block is read before the nonce, so "unused at a head whose timestamp passed `validBefore`"
 * is final: blocks only get later.
 *
 * @param deps - Store, networks, chain clients, clock, the issuer and the settings.
 * @returns The recovery.
 *
 * @example
 * ```ts
 * import { createSettlementRecovery, runWorker, settlementRecoveryQueue } from '@tollgate/core';
 * const recovery = createSettlementRecovery({ ...deps, issuer }, settings);
 * runWorker({ queue: settlementRecoveryQueue, jobs, handler: (job) => recovery.runJob(job), signal });
 * ```
 */
export function createSettlementRecovery(deps: PaymentDeps & { readonly issuer: ReceiptIssuer }, settings: PaymentSettings): SettlementRecovery {
  const { store } = deps;
  const now = () => new Date(deps.clock.now());

  async function inspect(payment: PaymentRecord): Promise<SettlementEvidenceVerdict> {
    const network = deps.networks.byName(payment.network);
    const client = network === undefined ? undefined : deps.chain?.(network);
    if (network === undefined || client === undefined) return { status: 'unknown', reason: 'no_rpc' };
    try {
      const head = await chainRead('eth_getBlockByNumber', settings.evidenceTimeoutMs, () => client.getBlock({ blockTag: 'latest' }));
      const evidence = await findAuthorizationSettlement({
        client,
        token: network.usdc.address,
        authorizer: getAddress(payment.payer),
        nonce: payment.nonce as `0x${string}`,
        payTo: getAddress(payment.payTo),
        value: BigInt(payment.amount),
        maxBlockSpan: settings.maxBlockSpan,
        timeoutMs: settings.evidenceTimeoutMs,
      });
      switch (evidence.status) {
        case 'settled':
          return { status: 'settled', txHash: evidence.txHash, blockNumber: evidence.blockNumber };
        case 'mismatch':
          return { status: 'failed', reason: evidence.reason === 'canceled' ? 'authorization_canceled' : 'settlement_mismatch', txHash: evidence.txHash };
        case 'outside_range':
          return { status: 'unknown', reason: 'outside_range' };
        case 'not_found':
          return head.timestamp >= BigInt(payment.validBefore)
            ? { status: 'failed', reason: 'authorization_expired', txHash: null }
            : { status: 'unknown', reason: 'not_yet_on_chain' };
      }
    } catch (error) {
      if (error instanceof ChainReadError) return { status: 'unknown', reason: 'rpc_unavailable' };
      throw error;
    }
  }

  const failureMessages = {
    authorization_expired: 'The authorization expired without being executed on chain; nothing was transferred.',
    authorization_canceled: 'The payer canceled the authorization on chain; nothing was transferred.',
    settlement_mismatch: 'The authorization’s nonce was used by a transfer that does not match this payment.',
  } as const;

  /** Resolves a pending payment; also returns why it is still pending, when it is. */
  async function settleFromChain(payment: PaymentRecord): Promise<{ payment: PaymentRecord; unknown?: string }> {
    if (payment.state !== 'pending') return { payment };
    const verdict = await inspect(payment);
    const network = deps.networks.byName(payment.network);
    if (verdict.status === 'unknown' || network === undefined) return { payment, unknown: verdict.status === 'unknown' ? verdict.reason : 'no_rpc' };
    if (verdict.status === 'settled') {
      const ref = await store.getRef(payment.refId);
      if (ref === undefined) throw new Error(`The ref ${payment.refId} of payment ${payment.paymentId} is missing.`);
      const completion = await deps.issuer.completion({ payment, ref, network, txHash: verdict.txHash, blockNumber: verdict.blockNumber, now: now() });
      const done = await store.completePayment(completion);
      if (done?.changed) deps.onEvent?.({ type: 'settled', paymentId: payment.paymentId, refId: payment.refId, txHash: completion.txHash, reason: 'chain_evidence' });
      return { payment: done?.payment ?? payment };
    }
    const answer = deps.issuer.failure({ payment, network, reason: verdict.reason, message: failureMessages[verdict.reason], txHash: verdict.txHash });
    const failed = await store.failPayment({ paymentId: payment.paymentId, errorReason: verdict.reason, txHash: verdict.txHash, answer, now: now() });
    if (failed?.changed) deps.onEvent?.({ type: 'failed', paymentId: payment.paymentId, refId: payment.refId, reason: verdict.reason });
    return { payment: failed?.payment ?? payment };
  }

  /**
   * A claim whose holder died: settle may have run, so it becomes pending; otherwise nothing happened and
   * it is released. `taken` is false when another instance took it first (`payment` is then as it stands).
   */
  async function takeOverAbandoned(payment: PaymentRecord): Promise<{ taken: boolean; payment: PaymentRecord | undefined }> {
    const leaseToken = randomId();
    const taken = await store.takeOverPayment({ paymentId: payment.paymentId, leaseToken, leaseUntil: new Date(deps.clock.now() + settings.leaseMs), now: now() });
    if (taken === undefined) return { taken: false, payment: await store.getPayment(payment.paymentId) };
    deps.onEvent?.({ type: 'taken_over', paymentId: payment.paymentId, refId: payment.refId });
    if (taken.settleStartedAt === null) {
      await store.releasePayment({ paymentId: payment.paymentId, leaseToken });
      deps.onEvent?.({ type: 'released', paymentId: payment.paymentId, refId: payment.refId, reason: 'abandoned_before_settle' });
      return { taken: true, payment: undefined };
    }
    const pending = await store.markPaymentPending({ paymentId: payment.paymentId, txHash: null, now: now() });
    if (pending?.changed) deps.onEvent?.({ type: 'pending', paymentId: payment.paymentId, refId: payment.refId, reason: 'abandoned_during_settle' });
    return { taken: true, payment: pending?.payment };
  }

  return {
    inspect,
    resolve: async (payment) => (await settleFromChain(payment)).payment,
    async runJob(job) {
      let payment = await store.getPayment(job.payload.paymentId);
      if (payment === undefined || payment.state === 'settled' || payment.state === 'failed') return;
      if (payment.state === 'processing') {
        if (payment.leaseUntil !== null && payment.leaseUntil.getTime() > deps.clock.now()) throw new Error('The payment is still being settled by its claim holder.');
        payment = (await takeOverAbandoned(payment)).payment;
        if (payment === undefined || payment.state !== 'pending') {
          if (payment?.state === 'processing') throw new Error('Another instance took the payment over.');
          return;
        }
      }
      const resolved = await settleFromChain(payment);
      if (resolved.payment.state === 'pending') throw new Error(`The payment is still pending (${resolved.unknown ?? 'unknown'}).`);
    },

    async sweepAbandoned(limit = 20) {
      const abandoned = await store.listAbandonedPayments({ now: now(), limit });
      let taken = 0;
      for (const payment of abandoned) if ((await takeOverAbandoned(payment)).taken) taken += 1;
      return taken;
    },
  };
}
