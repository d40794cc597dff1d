import { getAddress, type Address, type Hex } from 'viem';
import { eip3009Abi } from '../../chain/abi';
import { firstBlockAfter, lastBlockBefore, type BlockStamp } from '../../chain/block-by-time';
import { chainRead } from '../../chain/errors';
import { findAuthorizationSettlement, type AuthorizationSettlementEvidence } from '../../chain/settlement-evidence';
import type { EvidenceScan, PaymentRecord } from '../store/payment-records';
import type { SettlementChainClient } from './payment-deps';

/** What one search attempt found, with the progress to keep for the next attempt. */
export type EvidenceSearchOutcome =
  /** The authorization's `AuthorizationUsed` (or `AuthorizationCanceled`) event and its verdict. */
  | { readonly kind: 'found'; readonly evidence: Extract<AuthorizationSettlementEvidence, { status: 'settled' | 'mismatch' }>; readonly scan: EvidenceScan }
  /** Not executed as of the head; `expired` once the head is past `validBefore` (it never will be). */
  | { readonly kind: 'unused'; readonly expired: boolean; readonly scan: EvidenceScan }
  /** Executed, but its event lies in blocks not searched yet: the next attempt continues. */
  | { readonly kind: 'searching'; readonly scan: EvidenceScan }
  /**
   * Executed, yet the whole window was searched without finding its event (a node serving state ahead
   * of its logs, or a reorg): the scanned range is dropped, so the next attempt searches again.
   */
  | { readonly kind: 'missing'; readonly scan: EvidenceScan };

/** Parameters of {@link searchSettlementEvidence}. */
export interface EvidenceSearchParams {
  readonly client: SettlementChainClient;
  /** The network's USDC contract. */
  readonly token: Address;
  readonly payment: Pick<PaymentRecord, 'payer' | 'nonce' | 'payTo' | 'amount' | 'validAfter' | 'validBefore' | 'evidence'>;
  /** The head block every read of this attempt is pinned to. */
  readonly head: BlockStamp;
  /** Most blocks per `eth_getLogs` call. */
  readonly maxBlockSpan: number;
  /** Most blocks this attempt searches. */
  readonly scanBlocks: number;
  readonly timeoutMs: number;
}

/**
 * One attempt at finding the chain evidence of a payment's EIP-3009 authorization. The token executes
 * an authorization only in a block whose timestamp lies strictly between `validAfter` and `validBefore`,
 * so the `AuthorizationUsed` event can only be in that window of blocks (found by timestamp search, each
 * bound computed once and kept). The search starts with the newest `maxBlockSpan` blocks of the window
 * (where a payment's transfer almost always is: one `eth_getLogs`); after that, within a budget of
 * `scanBlocks` blocks per attempt, it takes the blocks mined since and walks further back toward the
 * window's start, keeping one contiguous scanned range on the payment. So it always finishes — even for a transfer executed long before the gateway saw the payment
 * (a `validAfter` far in the past) — and never searches a block twice while it goes.
 *
 * Every read is pinned to `head` (see `findAuthorizationSettlement`): `authorizationState` first, so an
 * authorization not executed costs one read.
 *
 * @param params - Client, token, payment, head, spans and deadline.
 * @returns What this attempt found and the progress to keep (`PaymentStore.recordEvidenceScan`).
 * @throws ChainReadError when a read fails or times out.
 *
 * @example
 * ```ts
 * import { searchSettlementEvidence } from '@tollgate/core/gateway';
 * const head = await client.getBlock({ blockTag: 'latest' });
 * const outcome = await searchSettlementEvidence({ client, token: usdc, payment, head, maxBlockSpan: 2_000, scanBlocks: 20_000, timeoutMs: 10_000 });
 * await stores.payments.recordEvidenceScan({ paymentId: payment.paymentId, scan: outcome.scan });
 * ```
 */
export async function searchSettlementEvidence(params: EvidenceSearchParams): Promise<EvidenceSearchOutcome> {
  const { client, token, payment, head, timeoutMs } = params;
  const authorizer = getAddress(payment.payer);
  const nonce = payment.nonce as Hex;
  const validBefore = BigInt(payment.validBefore);
  const expired = head.timestamp >= validBefore;
  const consumed = await chainRead('eth_call authorizationState', timeoutMs, () =>
    client.readContract({ address: token, abi: eip3009Abi, functionName: 'authorizationState', args: [authorizer, nonce], blockNumber: head.number }),
  );
  if (!consumed) return { kind: 'unused', expired, scan: payment.evidence };

  const windowHigh = expired ? (payment.evidence.windowHigh ?? (await lastBlockBefore(client, validBefore, head, timeoutMs))) : null;
  const high = windowHigh ?? head.number;
  let scan: EvidenceScan = { ...payment.evidence, windowHigh };
  const search = async (from: bigint, to: bigint) =>
    findAuthorizationSettlement({
      client,
      token,
      authorizer,
      nonce,
      payTo: getAddress(payment.payTo),
      value: BigInt(payment.amount),
      blockNumber: head.number,
      fromBlock: from,
      toBlock: to,
      maxBlockSpan: params.maxBlockSpan,
      timeoutMs,
    });
  const extend = (from: bigint, to: bigint) => {
    scan = { ...scan, scanned: scan.scanned === null ? { low: from, high: to } : { low: from < scan.scanned.low ? from : scan.scanned.low, high: to > scan.scanned.high ? to : scan.scanned.high } };
  };

  // The newest span first: a payment's transfer is almost always there, and finding it costs one call.
  let budget = BigInt(params.scanBlocks);
  if (scan.scanned === null) {
    const span = BigInt(params.maxBlockSpan) < budget ? BigInt(params.maxBlockSpan) : budget;
    const from = high - span + 1n > 0n ? high - span + 1n : 0n;
    const evidence = await search(from, high);
    // A hit is returned with the progress before it, so looking again (before the verdict is recorded) finds it again.
    if (evidence.status === 'settled' || evidence.status === 'mismatch') return { kind: 'found', evidence, scan };
    extend(from, high);
    budget -= high - from + 1n;
  }
  // Then the blocks mined since the last attempt, and further back toward the window's start.
  const low = scan.windowLow ?? (await firstBlockAfter(client, BigInt(payment.validAfter ?? '0'), head, timeoutMs));
  scan = { ...scan, windowLow: low };
  const scanned = scan.scanned as { low: bigint; high: bigint };
  const ranges: Array<{ from: bigint; to: bigint }> = [];
  if (budget > 0n && high > scanned.high) {
    const to = scanned.high + budget < high ? scanned.high + budget : high;
    ranges.push({ from: scanned.high + 1n, to });
    budget -= to - scanned.high;
  }
  if (budget > 0n && scanned.low > low) ranges.push({ from: scanned.low - budget > low ? scanned.low - budget : low, to: scanned.low - 1n });
  for (const range of ranges) {
    const evidence = await search(range.from, range.to);
    if (evidence.status === 'settled' || evidence.status === 'mismatch') return { kind: 'found', evidence, scan };
    extend(range.from, range.to);
  }
  const covered = scan.scanned !== null && scan.scanned.low <= low && scan.scanned.high >= high;
  if (covered) return { kind: 'missing', scan: { ...scan, scanned: null } };
  return { kind: 'searching', scan };
}
