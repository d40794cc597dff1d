import { isAddressEqual, type Address, type Hash } from 'viem';
import type { GatewayNetwork } from '../networks';
import type { FieldEvidence } from './receipt-context';
import type { ReceiptClaims } from './receipt-forms';
import { executedAuthorizations, type TokenTransfer } from './transfer-logs';
import type { TxObservation } from './tx-observation';

/**
 * What the current canonical chain says about a receipt's transaction:
 *
 * | status | meaning |
 * |---|---|
 * | `confirmed` | it succeeded, holds the authorization's transfer as claimed, with ≥ `minConfirmations` |
 * | `unconfirmed` | as `confirmed`, with fewer confirmations so far |
 * | `pending` | known to the node but not in a canonical block (mempool, or its block was just reorganised away) |
 * | `not_found` | the node does not know it (never mined, or reorganised out and dropped) |
 * | `reverted` | mined and reverted: it moved nothing |
 * | `mismatch` | mined, but its `AuthorizationUsed` / `Transfer` are not what the receipt claims (`fields` says which) |
 * | `unchecked` | this gateway has no RPC for the receipt's network |
 *
 * Only `confirmed` is a verified payment. `confirmations` is head − block + 1 for a mined transaction.
 */
export interface ChainReport {
  readonly status: 'confirmed' | 'unconfirmed' | 'pending' | 'not_found' | 'reverted' | 'mismatch' | 'unchecked';
  readonly confirmed: boolean;
  /** Network name, or the CAIP-2 id when this gateway does not know it. */
  readonly network: string;
  readonly txHash: Hash;
  readonly confirmations: number;
  readonly minConfirmations: number;
  readonly blockNumber: string | null;
  /** The USDC transfer the receipt's authorization executed, when found. */
  readonly transfer: TokenTransfer | null;
  readonly fields: readonly FieldEvidence[];
}

/** What the transfer must look like: the receipt's claims, completed by its ref or the request for an x402 receipt. */
export interface ExpectedTransfer extends ReceiptClaims {
  /** Where `payTo` and `amount` come from, for the evidence. */
  readonly termsSource: FieldEvidence['source'];
}

/**
 * Judges a transaction against a receipt's claims (pure: the caller observed the transaction).
 *
 * @param params - The network, the expected transfer, the observation and the confirmation policy.
 * @returns The chain report.
 * @example
 * ```ts
 * import { judgeReceiptTransaction } from '@tollgate/core/gateway';
 * const chain = judgeReceiptTransaction({ network, expected, observation, minConfirmations: 3 });
 * ```
 */
export function judgeReceiptTransaction(params: { network: GatewayNetwork; expected: ExpectedTransfer; observation: TxObservation; minConfirmations: number }): ChainReport {
  const { network, expected, observation, minConfirmations } = params;
  const base = { network: network.name, txHash: expected.txHash, minConfirmations, confirmations: observation.confirmations, transfer: null, fields: [] };
  if (observation.status === 'not_found' || observation.status === 'pending') return { ...base, status: observation.status, confirmed: false, blockNumber: null };
  const blockNumber = observation.blockNumber.toString();
  if (observation.status === 'reverted') return { ...base, status: 'reverted', confirmed: false, blockNumber };

  const token = network.usdc.address;
  const byPayer = executedAuthorizations(observation.logs, token).filter((entry) => isAddressEqual(entry.authorizer, expected.payer));
  const sameAddress = (a: Address | undefined, b: Address | undefined) => a === undefined || (b !== undefined && isAddressEqual(a, b));
  // A Tollgate receipt names its nonce; an x402 receipt does not, so the payer's authorization whose transfer fits is taken.
  const executed =
    expected.nonce !== undefined
      ? byPayer.find((entry) => entry.nonce === expected.nonce)
      : (byPayer.find((entry) => entry.transfer !== undefined && sameAddress(expected.payTo, entry.transfer.to) && (expected.amount === undefined || entry.transfer.value === expected.amount)) ?? byPayer[0]);
  const transfer = executed?.transfer;
  const fields: FieldEvidence[] = [
    {
      field: 'authorizationUsed',
      expected: { authorizer: expected.payer, nonce: expected.nonce ?? null },
      found: executed === undefined ? null : { authorizer: executed.authorizer, nonce: executed.nonce },
      match: executed !== undefined,
      source: 'receipt',
    },
    { field: 'transfer.token', expected: token, found: transfer?.token ?? null, match: transfer !== undefined, source: 'network' },
    { field: 'transfer.from', expected: expected.payer, found: transfer?.from ?? null, match: transfer !== undefined && isAddressEqual(transfer.from, expected.payer), source: 'receipt' },
  ];
  if (expected.payTo !== undefined) {
    fields.push({ field: 'transfer.to', expected: expected.payTo, found: transfer?.to ?? null, match: transfer !== undefined && isAddressEqual(transfer.to, expected.payTo), source: expected.termsSource });
  }
  if (expected.amount !== undefined) {
    fields.push({ field: 'transfer.value', expected: expected.amount, found: transfer?.value ?? null, match: transfer?.value === expected.amount, source: expected.termsSource });
  }
  const matches = fields.every((entry) => entry.match);
  const enough = observation.confirmations >= Math.max(1, minConfirmations);
  const status = !matches ? 'mismatch' : enough ? 'confirmed' : 'unconfirmed';
  return { ...base, status, confirmed: status === 'confirmed', blockNumber, transfer: transfer ?? null, fields };
}
