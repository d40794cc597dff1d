import * as v from 'valibot';
import type { ReceiptVerification } from '../../evidence/receipt-verification';
import type { TransferHistoryPage } from '../../evidence/transfer-history';
import type { TxStatusView } from '../../evidence/tx-status';
import { named } from '../descriptors';
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

const fieldEvidence = v.object({
  field: v.string(),
  expected: v.unknown(),
  found: v.unknown(),
  match: v.boolean(),
  source: v.picklist(['stored_receipt', 'request', 'network', 'ref', 'receipt']),
});

/** `POST /verify-receipt` → 200: signature and context valid; the chain part is a result, not an error. */
export const receiptVerificationResponse = named(
  'ReceiptVerification',
  describes<ReceiptVerification>()(
    v.object({
      verified: v.pipe(v.boolean(), v.description('True only when the signature and context are valid and the chain shows the transfer confirmed.')),
      kind: v.picklist(['tollgate', 'x402']),
      receiptHash: v.optional(v.pipe(v.string(), v.description('The Tollgate receipt hash (what refundOf=sha256:<hash> names).'))),
      signature: v.object({
        valid: v.boolean(),
        signer: v.nullable(addressOut),
        role: v.nullable(v.picklist(['current', 'previous'])),
        reason: v.picklist(['accepted', 'unknown_signer', 'unrecoverable', 'artifact_signature_differs']),
      }),
      context: v.object({
        valid: v.boolean(),
        content: v.picklist(['signed', 'matches_stored', 'differs_from_stored', 'unverifiable']),
        fields: v.array(fieldEvidence),
      }),
      chain: v.object({
        status: v.picklist(['confirmed', 'unconfirmed', 'pending', 'not_found', 'reverted', 'mismatch', 'unchecked']),
        confirmed: v.boolean(),
        network: v.pipe(v.string(), v.description('Network name, or the CAIP-2 id when this gateway does not know it.')),
        txHash: hash32Out,
        confirmations,
        minConfirmations: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
        blockNumber: v.nullable(blockNumber),
        transfer: v.nullable(tokenTransfer),
        fields: v.array(fieldEvidence),
      }),
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
