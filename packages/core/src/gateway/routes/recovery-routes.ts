import * as v from 'valibot';
import { GatewayError } from '../../errors/gateway';
import { route } from '../../http/routes';
import type { HttpRequest, HttpResponse, Middleware, Route } from '../../http/types';
import { X402_HEADER_MAX_BYTES } from '../../x402/headers';
import type { EvidenceViewer } from '../evidence/evidence-viewer';
import type { Payments } from '../payments/payments';
import type { NotSettledReason, RecoveryResult } from '../payments/recovery-result';
import { parseGatewayInput } from './parse-input';
import { settlementHttpResponse } from './settlement-http';

/** What the recovery route needs. */
export interface RecoverSettlementRouteDeps {
  readonly payments: Pick<Payments, 'recoverSettlement'>;
  /** Run before the body is read: the deployment's access policy and rate limit. None by default. */
  readonly middleware?: Middleware[];
  /**
   * Who asks (`EvidenceAccess.viewerOf`): a merchant viewer recovers only payments to its own refs (another
   * merchant's ref is `not_found`). Anyone by default.
   */
  readonly viewerOf?: (request: HttpRequest) => Promise<EvidenceViewer>;
}

/** Body cap of `POST /recover-settlement`: a payment payload (a header is at most 16 KiB) and a signed offer. */
export const recoverSettlementBodyLimit = 48 * 1024;

const plainObject = (expected: string) =>
  v.custom<Readonly<Record<string, unknown>>>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), expected);

/**
 * Body of `POST /recover-settlement` (gateway.md "Recovery request"): `refId`, `paymentPayload` (the
 * `PAYMENT-SIGNATURE` header value as the payer sent it, or its decoded JSON object), and optionally
 * `txHash` (a hint), `signedOffer` (a Tollgate offer object) and `fromBlock` (a block number). Unknown
 * fields are refused.
 *
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { recoverSettlementRequestSchema } from '@tollgate/core/gateway';
 * const request = v.parse(recoverSettlementRequestSchema, { refId, paymentPayload: header, fromBlock: 1200 });
 * ```
 */
export const recoverSettlementRequestSchema = v.strictObject({
  refId: v.pipe(v.string('a ref id'), v.minLength(1, 'a ref id'), v.maxLength(64, 'a ref id')),
  paymentPayload: v.union(
    [
      v.pipe(v.string(), v.minLength(1), v.maxLength(X402_HEADER_MAX_BYTES)),
      plainObject('the payment payload: the PAYMENT-SIGNATURE header value or its decoded JSON object'),
    ],
    'the payment payload: the PAYMENT-SIGNATURE header value (at most 16 KiB) or its decoded JSON object',
  ),
  txHash: v.optional(v.pipe(v.string('a transaction hash'), v.regex(/^0x[0-9a-fA-F]{64}$/, 'a transaction hash (0x followed by 64 hex digits)'))),
  signedOffer: v.optional(plainObject('a signed Tollgate offer object')),
  fromBlock: v.optional(v.pipe(v.number('a block number'), v.safeInteger('a block number'), v.minValue(0, 'a non-negative block number'))),
});

const notSettledMessages: Record<NotSettledReason, string> = {
  not_yet_on_chain:
    'No settlement of this payment was found on chain and this gateway never settled it. Its authorization can still be executed until validBefore: submit the same PAYMENT-SIGNATURE to the receive route to settle it (at most once), or ask again later.',
  authorization_expired: 'This payment was never settled and its authorization expired unused: nothing was transferred, and it never will be.',
  authorization_canceled: 'The payer canceled this authorization on chain: nothing was transferred, and it never will be.',
  settlement_mismatch: 'This authorization’s nonce was used by a transfer that does not match this payment: it was not paid to this ref.',
};

const pendingMessages: Record<Extract<RecoveryResult, { kind: 'pending' }>['reason'], string> = {
  in_progress: 'This payment is being settled; ask again later (never pay again: it settles at most once).',
  not_yet_on_chain: 'This payment was submitted for settlement and the chain shows no transfer yet; ask again later (never pay again: it settles at most once).',
  searching: 'This authorization was executed on chain but its transfer was not found yet in the blocks searched; ask again (the search continues), or pass txHash or fromBlock.',
  evidence_missing: 'This authorization was executed on chain but its transfer was not found in the blocks searched; ask again, or pass txHash or fromBlock.',
};

/** The HTTP form of a recovery: the settlement's own answer, or 404 `not_found` with `details.settled: false`. */
function recoveryResponse(result: RecoveryResult): HttpResponse {
  if (result.kind !== 'not_settled') {
    return settlementHttpResponse(result, { message: pendingMessages[result.kind === 'pending' ? result.reason : 'in_progress'], details: result.kind === 'pending' ? { reason: result.reason } : {} });
  }
  throw new GatewayError('not_found', notSettledMessages[result.reason], {
    details: {
      settled: false,
      reason: result.reason,
      retryable: result.retryable,
      paymentId: result.paymentId,
      validBefore: result.validBefore,
      ...(result.transaction === null ? {} : { transaction: result.transaction }),
    },
  });
}

/**
 * `POST /recover-settlement` (gateway.md "Recovery request", Rule 3): the settlement answer of a payment
 * whose answer was lost, from the gateway's records and chain evidence, never from a second settle. The
 * answers:
 *
 * - the payment's settlement answer, byte for byte what `/receive` gives for it: 200 with the receipt
 *   (`PAYMENT-RESPONSE` header, same JSON as the body), or 402 `settlement_failed`;
 * - 202 `settlement_pending` with `Retry-After` (`details.reason`: `in_progress`, `not_yet_on_chain`,
 *   `searching`, `evidence_missing`): ask again; the payment may be on its way, so never pay again;
 * - 404 `not_found` with `details.settled: false` and `details.reason` (`not_yet_on_chain`,
 *   `authorization_expired`, `authorization_canceled`, `settlement_mismatch`): the chain shows no transfer
 *   and this gateway never settled it; `details.retryable` says whether the authorization can still be
 *   executed (until `details.validBefore`). An unknown ref is also 404 `not_found`, without `settled`;
 * - errors: `invalid_request` (body), `payment_verification_failed` (the payload does not match the ref,
 *   or belongs to another ref: `details.field` `refId`, reason `other_ref`), `conflict`, `ref_expired` /
 *   `ref_revoked` / `payto_revoked`, `rpc_unavailable` (503, `Retry-After`).
 *
 * Mount it behind the deployment's access policy (`middleware`, and `viewerOf` to scope a merchant to its
 * own refs; `createGateway` does both with its `evidenceAccess`); it reads JSON bodies of at most
 * {@link recoverSettlementBodyLimit} bytes and refuses duplicate keys.
 *
 * @param deps - The payment services, the middleware and the viewer.
 * @returns The route.
 *
 * @example
 * ```ts
 * import { createPayments, recoverSettlementRoutes } from '@tollgate/core/gateway';
 * // createGateway already mounts it; to serve it from your own route table:
 * const routes = recoverSettlementRoutes({ payments: createPayments(deps), middleware: access.middleware('recoverSettlement'), viewerOf: access.viewerOf });
 * ```
 */
export function recoverSettlementRoutes(deps: RecoverSettlementRouteDeps): Route[] {
  const { recoverSettlement } = deps.payments;
  return [
    route({
      method: 'POST',
      path: '/recover-settlement',
      middleware: deps.middleware ?? [],
      body: { type: 'json', maxBytes: recoverSettlementBodyLimit },
      handler: async (request) => {
        const body = parseGatewayInput(recoverSettlementRequestSchema, request.body);
        const viewer = deps.viewerOf === undefined ? undefined : await deps.viewerOf(request);
        return recoveryResponse(await recoverSettlement.recover(viewer?.kind === 'merchant' ? { ...body, merchantId: viewer.merchantId } : body));
      },
    }),
  ];
}
