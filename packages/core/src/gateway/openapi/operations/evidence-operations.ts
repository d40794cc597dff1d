import * as v from 'valibot';
import type { EvidenceAccessMode } from '../../evidence/evidence-settings';
import { txHashSchema, txHistoryQuerySchema, txStatusQuerySchema, verifyReceiptRequestSchema, verifyRefundReceiptRequestSchema } from '../../evidence/schemas';
import { verifyReceiptBodyLimit } from '../../routes/evidence-routes';
import { named, type OperationGroup, type OperationSecurity } from '../../../openapi/descriptors';
import { receiptVerificationResponse, refundReceiptVerificationResponse, transferHistoryResponse, txStatusResponse } from '../schemas/evidence-responses';

const noStore = { 'Cache-Control': { description: 'no-store: confirmations change with every block.', required: true, schema: v.literal('no-store') } };

/**
 * The operations of `evidenceRoutes` (`routes/evidence-routes.ts`) under an access policy: `public`
 * (anyone; an Authorization header is ignored), or `merchant` (bearer key; a merchant sees only
 * transfers of its own payTo addresses, anything else is not_found).
 *
 * @param access - The deployment's evidence access policy.
 * @returns The group.
 * @example
 * ```ts
 * import { buildOpenApiDocument, evidenceOperations } from '@tollgate/core/gateway';
 * const document = buildOpenApiDocument([evidenceOperations('merchant')]);
 * ```
 */
export function evidenceOperations(access: EvidenceAccessMode): OperationGroup {
  const security: OperationSecurity = access === 'merchant' ? 'bearer' : 'public';
  return {
    name: 'evidence',
    description: 'Chain evidence: receipt and refund receipt verification, transaction status and USDC transfer history, read from the chain with bounded reads.',
    operations: [
      {
        method: 'POST',
        path: '/verify-receipt',
        operationId: 'verifyReceipt',
        summary: 'Verify a receipt: signature, context and chain confirmation',
        description:
          'Takes the Tollgate receipt (receipt and signedReceipt of the settlement response) or the official x402 receipt. A bad signature or context is 422 receipt_invalid with the field evidence in details; the chain part (confirmations, transfer) is reported in the 200 answer.',
        security,
        rateLimited: true,
        body: { schema: named('VerifyReceiptRequest', verifyReceiptRequestSchema), maxBytes: verifyReceiptBodyLimit },
        responses: { 200: { description: 'The verification report.', body: receiptVerificationResponse, headers: noStore } },
        errors: ['receipt_invalid', 'not_found', 'rpc_unavailable'],
      },
      {
        method: 'POST',
        path: '/verify-refund-receipt',
        operationId: 'verifyRefundReceipt',
        summary: "Verify a refund receipt or a rejected-refund receipt: signature, binding to the original payment, and a paid refund's transfer",
        description:
          "Takes the refund receipt of a refund payment (x402.refund.receipt) or a rejected-refund receipt (x402.refund.rejected) with its signedReceipt, and optionally the original payment's Tollgate receipt (originalReceipt), which refundOf and the parties are then checked against. A bad signature or binding is 422 receipt_invalid with the field evidence in details; a paid refund's chain part is reported in the 200 answer. Shares the rate-limit budget of POST /verify-receipt.",
        security,
        rateLimited: true,
        body: { schema: named('VerifyRefundReceiptRequest', verifyRefundReceiptRequestSchema), maxBytes: verifyReceiptBodyLimit },
        responses: { 200: { description: 'The verification report.', body: refundReceiptVerificationResponse, headers: noStore } },
        errors: ['receipt_invalid', 'not_found', 'rpc_unavailable'],
      },
      {
        method: 'GET',
        path: '/tx/:txHash',
        operationId: 'getTransactionStatus',
        summary: 'Status of a transaction and its USDC transfer',
        security,
        rateLimited: true,
        pathParams: { txHash: { description: 'The transaction hash.', schema: txHashSchema } },
        query: txStatusQuerySchema,
        responses: { 200: { description: 'The transaction as the canonical chain shows it now.', body: txStatusResponse, headers: noStore } },
        errors: ['not_found', 'rpc_unavailable'],
      },
      {
        method: 'GET',
        path: '/txs',
        operationId: 'listTransfers',
        summary: 'USDC transfer history to (pay_to) or from (from) an address, newest first',
        security,
        rateLimited: true,
        query: txHistoryQuerySchema,
        responses: { 200: { description: 'One page of transfers; nextCursor continues the walk to older blocks.', body: transferHistoryResponse, headers: noStore } },
        errors: ['not_found', 'rpc_unavailable'],
      },
    ],
  };
}
