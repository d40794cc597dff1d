import type { EvidenceAccessMode } from '../../evidence/evidence-settings';
import { recoverSettlementBodyLimit, recoverSettlementRequestSchema } from '../../routes/recovery-routes';
import { named, type OperationGroup } from '../../../openapi/descriptors';
import { paymentReceiptComponent, refundReceiptComponent } from '../schemas/payment-responses';
import { failedSettlementHeader, settlementResponses } from './receive-operations';

/**
 * The operations of `recoverSettlementRoutes` (`routes/recovery-routes.ts`) under an access policy:
 * `public`, or `merchant` (bearer key, and a merchant recovers only payments to its own refs).
 *
 * @param access - The deployment's evidence access policy (`createGateway` mounts recovery behind it).
 * @returns The group.
 * @example
 * ```ts
 * import { buildOpenApiDocument, recoveryOperations } from '@tollgate/core/gateway';
 * const document = buildOpenApiDocument([recoveryOperations('public')]);
 * ```
 */
export function recoveryOperations(access: EvidenceAccessMode): OperationGroup {
  return {
    name: 'recovery',
    description: 'Recovery of a settlement answer that was lost, from the gateway records and chain evidence, never by settling again.',
    sharedSchemas: [paymentReceiptComponent, refundReceiptComponent],
    operations: [
      {
        method: 'POST',
        path: '/recover-settlement',
        operationId: 'recoverSettlement',
        summary: 'Recover the settlement answer of a payment',
        description:
          'Answers what /receive answered (or would have) for this payment: 200 settled, 202 settlement_pending, or 402 settlement_failed. 404 not_found with details.settled false when the chain shows no transfer and this gateway never settled it (details.reason, details.retryable, details.validBefore).',
        security: access === 'merchant' ? 'bearer' : 'public',
        rateLimited: true,
        body: { schema: named('RecoverSettlementRequest', recoverSettlementRequestSchema), maxBytes: recoverSettlementBodyLimit },
        responses: {
          200: settlementResponses.settled,
          202: settlementResponses.pending,
          402: {
            description: 'settlement_failed: the stored failure of this payment (PAYMENT-RESPONSE tells why); payment_verification_failed: the payload does not match the ref.',
            headers: { 'PAYMENT-RESPONSE': failedSettlementHeader },
            codes: ['settlement_failed', 'payment_verification_failed'],
          },
        },
        errors: ['not_found', 'payment_verification_failed', 'settlement_failed', 'settlement_pending', 'conflict', 'ref_expired', 'ref_revoked', 'payto_revoked', 'rpc_unavailable'],
      },
    ],
  };
}
