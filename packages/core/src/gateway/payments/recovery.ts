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

/**
 * What taking over a claim whose lease ended did: `held` (settle never started; the caller now holds the
 * claim with `leaseToken`), `pending` (settle had started: the payment was made pending, the chain
 * decides) or `lost` (another holder took it first, or it moved on; `payment` as it now stands).
 */
export type ClaimTakeover =
  | { readonly kind: 'held'; readonly payment: PaymentRecord; readonly leaseToken: string }
  | { readonly kind: 'pending'; readonly payment: PaymentRecord }
  | { readonly kind: 'lost'; readonly payment: PaymentRecord | undefined };

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
   * Takes over a `processing` claim whose lease ended (its holder died or hung). Settle may have run once
   * it started, so such a claim becomes `pending` (settle is never called again); an earlier one is handed
   * to the caller (`held`). Atomic: of concurrent callers, one takes it, the others get `lost`.
   */
  takeOver(payment: PaymentRecord): Promise<ClaimTakeover>;
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
  /**
   * Gives `pending` payments whose recovery job died (it used all its attempts: no RPC, or an RPC down for
   * hours) or went missing a new job, of their next recovery generation. Safe on every instance at once
   * (a generation is renewed once).
   *
   * @param limit - Most payments handled per call (default 20).
   * @returns How many payments got a new recovery job.
   */
  sweepStranded(limit?: number): Promise<number>;
}

/**
 * How far below the head block recorded at settle start the log search begins: that head may come from a
 * node lagging the one that mines the transfer, or be undone by a short reorg.
 */
export const evidenceMarginBlocks = 64n;

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
 * | nonce unused before `validBefore`, RPC down, no RPC configured, a node without the head block | still pending |
 *
 * The head block is read once and every other read is pinned to its number, so "unused at a head whose
 * timestamp passed `validBefore`" is final: a load-balanced RPC whose nodes lag each other cannot answer
 * from an older state (a node that does not have the block yet fails the read: still pending). The logs
 * are searched from {@link evidenceMarginBlocks} below the head recorded when settle started, forward,
 * for at most `evidenceScanBlocks` blocks; without a recorded head, back from the head for as many.
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
  const event = (type: Parameters<NonNullable<PaymentDeps['onEvent']>>[0]['type'], payment: PaymentRecord, extra: { txHash?: string; reason?: string } = {}) =>
    deps.onEvent?.({ type, paymentId: payment.paymentId, refId: payment.refId, ...extra });

  /** Where the log search starts and which way it walks. */
  function searchRange(payment: PaymentRecord): { fromBlock?: bigint; direction: 'forward' | 'backward' } {
    if (payment.settleHeadBlock === null) return { direction: 'backward' };
    const recorded = BigInt(payment.settleHeadBlock);
    return { fromBlock: recorded > evidenceMarginBlocks ? recorded - evidenceMarginBlocks : 0n, direction: 'forward' };
  }

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
        blockNumber: head.number,
        ...searchRange(payment),
        maxBlockSpan: settings.maxBlockSpan,
        maxScanBlocks: settings.evidenceScanBlocks,
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
      if (done?.changed) event('settled', payment, { txHash: completion.txHash, reason: 'chain_evidence' });
      return { payment: done?.payment ?? payment };
    }
    const answer = deps.issuer.failure({ payment, network, reason: verdict.reason, message: failureMessages[verdict.reason], txHash: verdict.txHash });
    const failed = await store.failPayment({ paymentId: payment.paymentId, errorReason: verdict.reason, txHash: verdict.txHash, answer, now: now() });
    if (failed?.changed) event('failed', payment, { reason: verdict.reason });
    return { payment: failed?.payment ?? payment };
  }

  async function takeOver(payment: PaymentRecord): Promise<ClaimTakeover> {
    const leaseToken = randomId();
    const taken = await store.takeOverPayment({ paymentId: payment.paymentId, leaseToken, leaseUntil: new Date(deps.clock.now() + settings.leaseMs), now: now() });
    if (taken === undefined) return { kind: 'lost', payment: await store.getPayment(payment.paymentId) };
    event('taken_over', taken);
    if (taken.settleStartedAt === null) return { kind: 'held', payment: taken, leaseToken };
    // Settle may have run: never call it again, let the chain tell.
    const pending = await store.markPaymentPending({ paymentId: payment.paymentId, txHash: null, now: now() });
    if (pending?.changed) event('pending', taken, { reason: 'lease_expired_during_settle' });
    return pending === undefined ? { kind: 'lost', payment: undefined } : { kind: 'pending', payment: pending.payment };
  }

  return {
    inspect,
    resolve: async (payment) => (await settleFromChain(payment)).payment,
    takeOver,

    async runJob(job) {
      // Only `markPaymentPending` and `renewRecovery` enqueue this job, both for a pending payment, and a
      // payment never returns to `processing`.
      const payment = await store.getPayment(job.payload.paymentId);
      if (payment === undefined || payment.state !== 'pending') return;
      const resolved = await settleFromChain(payment);
      if (resolved.payment.state === 'pending') throw new Error(`The payment is still pending (${resolved.unknown ?? 'unknown'}).`);
    },

    async sweepAbandoned(limit = 20) {
      const abandoned = await store.listAbandonedPayments({ now: now(), limit });
      let taken = 0;
      for (const payment of abandoned) {
        const takeover = await takeOver(payment);
        if (takeover.kind === 'lost') continue;
        taken += 1;
        if (takeover.kind === 'held') {
          // Settle never started: nothing can be on chain, so the payer may simply pay again.
          await store.releasePayment({ paymentId: payment.paymentId, leaseToken: takeover.leaseToken });
          event('released', payment, { reason: 'abandoned_before_settle' });
        }
      }
      return taken;
    },

    async sweepStranded(limit = 20) {
      const stranded = await store.listStrandedPayments({ limit });
      let renewed = 0;
      for (const payment of stranded) {
        if (!(await store.renewRecovery({ paymentId: payment.paymentId, generation: payment.recoveryGeneration, now: now() }))) continue;
        renewed += 1;
        event('recovery_renewed', payment, { reason: `generation_${payment.recoveryGeneration + 1}` });
      }
      return renewed;
    },
  };
}
