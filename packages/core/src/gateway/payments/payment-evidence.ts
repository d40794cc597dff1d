import { getAddress, isAddressEqual, parseEventLogs, type Hash, type Log } from 'viem';
import { authorizationUsedEvent } from '../../chain/abi';
import { chainRead, ChainReadError } from '../../chain/errors';
import { attributeTransfer } from '../../chain/transfer-attribution';
import type { GatewayNetwork } from '../networks';
import type { EvidenceScan, PaymentRecord } from '../store/payment-records';
import { searchSettlementEvidence, type EvidenceSearchOutcome } from './evidence-search';
import type { PaymentDeps, PaymentSettings, SettlementChainClient } from './payment-deps';

/** What the chain says about a payment whose outcome the gateway does not know. */
export type SettlementEvidenceVerdict =
  | { readonly status: 'settled'; readonly txHash: string; readonly blockNumber: bigint }
  | { readonly status: 'failed'; readonly reason: 'authorization_expired' | 'authorization_canceled' | 'settlement_mismatch'; readonly txHash: string | null }
  | {
      readonly status: 'unknown';
      /**
       * `not_yet_on_chain`: not executed, still executable; `searching`: executed, its event not found
       * yet in the blocks searched so far; `evidence_missing`: executed, but the whole window was searched
       * without its event (the search starts over); `no_rpc` / `rpc_unavailable`: the chain cannot be read.
       */
      readonly reason: 'not_yet_on_chain' | 'searching' | 'evidence_missing' | 'no_rpc' | 'rpc_unavailable';
    };

/** What the chain says about the transaction a facilitator reported as the payment's settlement. */
export type TransferConfirmation =
  | { readonly status: 'confirmed'; readonly blockNumber: bigint }
  /** The receipt is missing, reverted, or does not hold this authorization's transfer of the amount to payTo. */
  | { readonly status: 'unconfirmed'; readonly reason: 'receipt_missing' | 'reverted' | 'transfer_mismatch' }
  /** No chain client, or the read failed. */
  | { readonly status: 'unavailable' };

/**
 * The facts of an authorization the chain is asked about: whose, which nonce, the payee and amount it
 * must have paid, its validity window, and the network. A stored payment is one; so is a payload the
 * gateway holds no record of (`/recover-settlement`).
 */
export type EvidenceTarget = Pick<PaymentRecord, 'network' | 'payer' | 'nonce' | 'payTo' | 'amount' | 'validAfter' | 'validBefore'>;

/** Reads the chain about payments; never calls the facilitator. */
export interface PaymentEvidence {
  /**
   * Looks for the payment's chain evidence (see `searchSettlementEvidence`) and keeps the search's
   * progress on the payment (`PaymentStore.recordEvidenceScan`), so the next look continues from there.
   * Expected outcomes are verdicts, never exceptions: an unreadable chain is `unknown`.
   */
  inspect(payment: PaymentRecord): Promise<SettlementEvidenceVerdict>;
  /**
   * The search of {@link PaymentEvidence.inspect} for an authorization without a record: one attempt from
   * `scan` (a `windowLow` given there is where the search starts instead of the block after `validAfter`),
   * returning the verdict and the progress, which the caller keeps or drops. Same verdicts as `inspect`.
   */
  lookup(target: EvidenceTarget, scan: EvidenceScan): Promise<{ verdict: SettlementEvidenceVerdict; scan: EvidenceScan }>;
  /**
   * Checks that `txHash` is a successful transaction holding this payment's `AuthorizationUsed` and its
   * `Transfer` of the amount from the payer to payTo, before a receipt is signed on a facilitator's word
   * (or on a caller's hint).
   */
  confirmTransfer(target: EvidenceTarget, txHash: string): Promise<TransferConfirmation>;
}

/** The verdict of one search attempt's outcome. */
function verdictOf(outcome: EvidenceSearchOutcome): SettlementEvidenceVerdict {
  switch (outcome.kind) {
    case 'found': {
      const { evidence } = outcome;
      if (evidence.status === 'settled') return { status: 'settled', txHash: evidence.txHash, blockNumber: evidence.blockNumber };
      return { status: 'failed', reason: evidence.reason === 'canceled' ? 'authorization_canceled' : 'settlement_mismatch', txHash: evidence.txHash };
    }
    case 'unused':
      return outcome.expired ? { status: 'failed', reason: 'authorization_expired', txHash: null } : { status: 'unknown', reason: 'not_yet_on_chain' };
    case 'searching':
      return { status: 'unknown', reason: 'searching' };
    case 'missing':
      return { status: 'unknown', reason: 'evidence_missing' };
  }
}

/**
 * Creates the chain reads of the payment flow. The verdicts of {@link PaymentEvidence.inspect}:
 *
 * | chain | verdict |
 * |---|---|
 * | this authorization's transfer of the amount to payTo | `settled` with its hash and block |
 * | authorization canceled | `failed`, `authorization_canceled` |
 * | nonce used by a transfer to another payee or amount | `failed`, `settlement_mismatch` |
 * | nonce unused at a head whose timestamp is ≥ `validBefore` | `failed`, `authorization_expired` (no later block can execute it) |
 * | nonce unused before `validBefore` | `unknown`, `not_yet_on_chain` |
 * | nonce used, event not found yet | `unknown`, `searching` / `evidence_missing` |
 * | no RPC, RPC down, a node without the head block | `unknown`, `no_rpc` / `rpc_unavailable` |
 *
 * The head block is read once per look and every other read is pinned to it, so "unused at a head past
 * `validBefore`" is final even behind a load-balanced RPC whose nodes lag each other.
 *
 * @param deps - Stores, networks, chain clients.
 * @param settings - Spans, scan budget and deadlines.
 * @returns The evidence reader.
 *
 * @example
 * ```ts
 * import { createPaymentEvidence } from '@tollgate/core/gateway';
 * const evidence = createPaymentEvidence(deps, settings);
 * const verdict = await evidence.inspect(payment);
 * ```
 */
export function createPaymentEvidence(deps: Pick<PaymentDeps, 'stores' | 'networks' | 'chain'>, settings: PaymentSettings): PaymentEvidence {
  const { payments } = deps.stores;
  const clientFor = (target: EvidenceTarget): { network: GatewayNetwork; client: SettlementChainClient } | undefined => {
    const network = deps.networks.byName(target.network);
    const client = network === undefined ? undefined : deps.chain?.(network);
    return network === undefined || client === undefined ? undefined : { network, client };
  };

  async function confirmTransfer(payment: EvidenceTarget, txHash: string): Promise<TransferConfirmation> {
    const chain = clientFor(payment);
    if (chain === undefined) return { status: 'unavailable' };
    const token = chain.network.usdc.address;
    let receipt;
    try {
      receipt = await chainRead('eth_getTransactionReceipt', settings.evidenceTimeoutMs, () =>
        chain.client.getTransactionReceipt({ hash: txHash as Hash }).catch((error: unknown) => {
          // viem reports an unknown hash as an error; here it is an answer.
          if (error instanceof Error && error.name === 'TransactionReceiptNotFoundError') return null;
          throw error;
        }),
      );
    } catch (error) {
      if (error instanceof ChainReadError) return { status: 'unavailable' };
      throw error;
    }
    if (receipt === null) return { status: 'unconfirmed', reason: 'receipt_missing' };
    if (receipt.status !== 'success') return { status: 'unconfirmed', reason: 'reverted' };
    const payer = getAddress(payment.payer);
    const used = parseEventLogs({ abi: [authorizationUsedEvent], logs: receipt.logs as Log[], strict: true }).find(
      (log) => isAddressEqual(log.address, token) && isAddressEqual(log.args.authorizer, payer) && log.args.nonce.toLowerCase() === payment.nonce.toLowerCase(),
    );
    const transfer = used === undefined ? undefined : attributeTransfer(receipt.logs, token, payer, used.logIndex ?? -1);
    if (transfer === undefined || !isAddressEqual(transfer.to, getAddress(payment.payTo)) || transfer.value !== BigInt(payment.amount)) {
      return { status: 'unconfirmed', reason: 'transfer_mismatch' };
    }
    return { status: 'confirmed', blockNumber: receipt.blockNumber };
  }

  async function lookup(target: EvidenceTarget, scan: EvidenceScan): Promise<{ verdict: SettlementEvidenceVerdict; scan: EvidenceScan }> {
    const chain = clientFor(target);
    if (chain === undefined) return { verdict: { status: 'unknown', reason: 'no_rpc' }, scan };
    try {
      const head = await chainRead('eth_getBlockByNumber', settings.evidenceTimeoutMs, () => chain.client.getBlock({ blockTag: 'latest' }));
      const outcome = await searchSettlementEvidence({
        client: chain.client,
        token: chain.network.usdc.address,
        payment: { ...target, evidence: scan },
        head,
        maxBlockSpan: settings.maxBlockSpan,
        scanBlocks: settings.evidenceScanBlocks,
        timeoutMs: settings.evidenceTimeoutMs,
      });
      return { verdict: verdictOf(outcome), scan: outcome.scan };
    } catch (error) {
      if (error instanceof ChainReadError) return { verdict: { status: 'unknown', reason: 'rpc_unavailable' }, scan };
      throw error;
    }
  }

  return {
    async inspect(payment) {
      // A hash the facilitator answered (kept on the row) is checked first: one receipt read instead of a search.
      if (payment.txHash !== null && clientFor(payment) !== undefined) {
        const confirmation = await confirmTransfer(payment, payment.txHash);
        if (confirmation.status === 'confirmed') return { status: 'settled', txHash: payment.txHash, blockNumber: confirmation.blockNumber };
      }
      const looked = await lookup(payment, payment.evidence);
      if (looked.scan !== payment.evidence) await payments.recordEvidenceScan({ paymentId: payment.paymentId, scan: looked.scan });
      return looked.verdict;
    },
    lookup,
    confirmTransfer,
  };
}
