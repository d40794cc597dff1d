import { GatewayError, gatewayErrorCodes } from '../../errors/gateway';
import { renderGatewayError } from '../../errors/render';
import type { HttpResponse } from '../../http/types';
import { x402HeaderNames } from '../../x402/headers';
import type { SettlementResult } from '../payments/settlement';

const json = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } as const;
const paymentResponseHeader = x402HeaderNames.paymentResponse.toLowerCase();

/**
 * The HTTP form of a settlement's answer, shared by `/receive` and `/recover-settlement` so both give the
 * same bytes: a final answer as stored (200 settled, or `settlement_failed`'s status from the gateway
 * table), or `settlement_pending` rendered by the gateway renderer (its status, `Retry-After`), each with
 * its `PAYMENT-RESPONSE`.
 *
 * @param result - The settlement's answer.
 * @param pending - The message and extra details of a pending answer (what the client should do next).
 * @returns The response.
 *
 * @example
 * ```ts
 * import { settlementHttpResponse } from '@tollgate/core/gateway';
 * return settlementHttpResponse(await settlement.settle(request), { message: 'Retry the same PAYMENT-SIGNATURE later.' });
 * ```
 */
export function settlementHttpResponse(result: SettlementResult, pending: { message: string; details?: Record<string, unknown> }): HttpResponse {
  if (result.kind === 'final') {
    return {
      status: result.answer.outcome === 'settled' ? 200 : gatewayErrorCodes.settlement_failed.status,
      headers: { ...json, [paymentResponseHeader]: result.answer.paymentResponse },
      body: result.answer.body,
    };
  }
  const rendered = renderGatewayError(
    new GatewayError('settlement_pending', pending.message, {
      details: { paymentId: result.paymentId, ...(result.transaction === null ? {} : { transaction: result.transaction }), ...pending.details },
      retryAfterSeconds: result.retryAfterSeconds,
    }),
  );
  return { status: rendered.status, headers: { ...rendered.headers, [paymentResponseHeader]: result.paymentResponse }, body: JSON.stringify(rendered.body) };
}
