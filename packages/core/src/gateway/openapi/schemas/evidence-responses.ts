import * as v from 'valibot';
import type { ReceiptVerification } from '../../evidence/receipt-verification';
import type { RefundReceiptVerification } from '../../evidence/refund-receipt-verification';
import type { TransferHistoryPage } from '../../evidence/transfer-history';
import type { TxStatusView } from '../../evidence/tx-status';
import { named } from '../../../openapi/descriptors';
import { addressOut, decimalOut, describes, hash32Out } from './common';

/** Response schemas of the chain-evidence routes (`evidence-routes.ts`), each tied to its service type. */

const tokenTransferEntries = {
  token: addressOut,
  from: addressOut,
  to: addressOut,
  value: v.pipe(decimalOut, v.description('Atomic units.')),
  logIndex: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
};
const tokenTransfer = v.object(tokenTransferEntries);
const blockNumber = v.pipe(decimalOut, v.description('Block number, decimal string.'));
const confirmations = v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.description('head − block + 1 once mined in a canonical block, else 0.'));

const receiptSources = ['stored_receipt', 'request', 'network', 'ref', 'receipt'] as const;
const fieldEvidenceOf = <const Sources extends readonly string[]>(sources: Sources) =>
  v.object({ field: v.string(), expected: v.unknown(), found: v.unknown(), match: v.boolean(), source: v.picklist(sources) });
const fieldEvidence = fieldEvidenceOf(receiptSources);

const signature = v.object({
  valid: v.boolean(),
  signer: v.nullable(addressOut),
  role: v.nullable(v.picklist(['current', 'previous'])),
  reason: v.picklist(['accepted', 'unknown_signer', 'unrecoverable', 'artifact_signature_differs']),
});
const content = v.picklist(['signed', 'matches_stored', 'differs_from_stored', 'unverifiable']);
const chain = v.object({
  status: v.picklist(['confirmed', 'unconfirmed', 'pending', 'not_found', 'reverted', 'mismatch', 'unchecked']),
  confirmed: v.boolean(),
  network: v.pipe(v.string(), v.description('Network name, or the CAIP-2 id when this gateway does not know it.')),
  txHash: hash32Out,
  confirmations,
  minConfirmations: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  blockNumber: v.nullable(blockNumber),
  transfer: v.nullable(tokenTransfer),
  fields: v.array(fieldEvidence),
});

/** `POST /verify-receipt` → 200: signature and context valid; the chain part is a result, not an error. */
export const receiptVerificationResponse = named(
  'ReceiptVerification',
  describes<ReceiptVerification>()(
    v.object({
      verified: v.pipe(v.boolean(), v.description('True only when the signature and context are valid and the chain shows the transfer confirmed.')),
      kind: v.picklist(['tollgate', 'x402']),
      receiptHash: v.optional(v.pipe(v.string(), v.description('The Tollgate receipt hash (what refundOf=sha256:<hash> names).'))),
      signature,
      context: v.object({ valid: v.boolean(), content, fields: v.array(fieldEvidence) }),
      chain,
    }),
  ),
);

/**
 * `POST /verify-refund-receipt` → 200: a refund receipt's or a rejected-refund receipt's signature and
 * binding hold; a paid refund's chain part is a result, a rejected refund has none.
 */
export const refundReceiptVerificationResponse = named(
  'RefundReceiptVerification',
  describes<RefundReceiptVerification>()(
    v.object({
      verified: v.pipe(
        v.boolean(),
        v.description('A paid refund: true only when the chain shows its transfer confirmed as well. A rejected refund moved nothing: true on signature and context.'),
      ),
      kind: v.picklist(['refund', 'rejected_refund']),
      receiptHash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/), v.description("The refund receipt's hash.")),
      refundOf: v.pipe(v.string(), v.regex(/^sha256:[0-9a-f]{64}$/), v.description('The original payment receipt the refund names.')),
      signature,
      context: v.object({
        valid: v.boolean(),
        content,
        binding: v.pipe(
          v.picklist(['original_receipt', 'refund_intent', 'signed_only']),
          v.description(
            "What refundOf and the parties were checked against: the request's originalReceipt, the refund intent this gateway stored, or neither (only the signature vouches for the binding).",
          ),
        ),
        fields: v.array(fieldEvidenceOf([...receiptSources, 'original_receipt', 'refund_intent'])),
      }),
      chain: v.pipe(v.nullable(chain), v.description('The reverse transfer of a paid refund; null for a rejected refund.')),
    }),
  ),
);

/** `GET /tx/:txHash` → 200. */
export const txStatusResponse = named(
  'TxStatus',
  describes<TxStatusView>()(
    v.object({
      txHash: hash32Out,
      network: v.pipe(v.string(), v.description('The network name that was read.')),
      found: v.pipe(v.boolean(), v.description('Whether the node knows the transaction.')),
      status: v.picklist(['not_found', 'pending', 'success', 'reverted']),
      confirmations,
      blockNumber: v.nullable(blockNumber),
      blockHash: v.nullable(hash32Out),
      transfer: v.pipe(v.nullable(tokenTransfer), v.description('The USDC transfer of the transaction (for a merchant: the first touching its payTo); null when it moved no USDC.')),
      transferCount: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
      logs: v.pipe(
        v.array(
          v.object({
            logIndex: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
            address: addressOut,
            topics: v.array(hash32Out),
            data: v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]*$/)),
          }),
        ),
        v.description('The logs in order, bounded in count and bytes (see logsTruncated).'),
      ),
      logCount: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
      logsTruncated: v.boolean(),
    }),
  ),
);

/** `GET /txs` → 200. */
export const transferHistoryResponse = named(
  'TransferHistoryPage',
  describes<TransferHistoryPage>()(
    v.object({
      network: v.string(),
      asset: v.literal('USDC'),
      items: v.array(v.object({ ...tokenTransferEntries, txHash: hash32Out, blockNumber, blockHash: hash32Out })),
      scanned: v.pipe(
        v.nullable(v.object({ fromBlock: blockNumber, toBlock: blockNumber })),
        v.description('The blocks this page covered, or null when from_block is beyond the head.'),
      ),
      nextCursor: v.optional(v.pipe(v.string(), v.description('Present while older blocks remain: pass it back unchanged as cursor.'))),
    }),
  ),
);
