import { gatewayErrorCodes } from '../../errors/gateway';
import { cors } from '../../http/cors';
import { route } from '../../http/routes';
import type { Middleware, Route } from '../../http/types';
import type { RateLimiter, RateLimitRule } from '../../storage/rate-limit/rate-limiter';
import { x402HeaderNames } from '../../x402/headers';
import type { Payments } from '../payments/payments';
import { gatewayRateLimit } from './rate-limit';
import { settlementHttpResponse } from './settlement-http';

/** What the receive routes need. */
export interface ReceiveRouteDeps {
  readonly payments: Pick<Payments, 'negotiation' | 'settlement'>;
  /** Limiter of `GET`/`HEAD` per client address (preflights are not limited); none without it. */
  readonly rateLimiter?: RateLimiter;
  /** Its rule; required with `rateLimiter`. */
  readonly rateLimit?: RateLimitRule;
}

const json = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } as const;
const paymentRequiredHeader = x402HeaderNames.paymentRequired.toLowerCase();

/**
 * CORS of `/receive`: any origin (payers pay from any page), `PAYMENT-SIGNATURE` allowed in
 * preflights, and the x402 headers readable by scripts.
 */
export const receiveCors = cors({
  allowMethods: ['GET'],
  allowHeaders: ['payment-signature', 'content-type', 'access-control-expose-headers'],
  exposeHeaders: ['payment-required', 'payment-response', 'retry-after'],
});

const pendingMessage = 'The payment was submitted for settlement and its outcome is not known yet; retry the same PAYMENT-SIGNATURE later.';

/**
 * The x402 receive route, `GET /receive/:payTo?ref=<refId>[&amount=<atomic>][&refundOf=sha256:<receiptHash>]`
 * (`refundOf`: order mode's refund refs, where `:payTo` is the original payer and the merchant's payTo pays):
 *
 * - without `PAYMENT-SIGNATURE` (and for `HEAD`, which never settles): 402 with `PAYMENT-REQUIRED`
 *   (standard base64 of the x402 v2 PaymentRequired) and the `payment_required` error envelope;
 * - with it: 200 and the settlement response (`PAYMENT-RESPONSE` header, same JSON as the body), 402
 *   `settlement_failed`, 202 `settlement_pending` with `Retry-After`, or an error envelope.
 *
 * Plus `OPTIONS /receive/:payTo` for browser preflights. With `rateLimiter` and `rateLimit`, `GET` and
 * `HEAD` spend the client's `receive` budget (over it: 429 `rate_limited`, with the CORS headers).
 *
 * @param deps - The payment services, and the rate limit.
 * @returns The routes.
 *
 * @example
 * ```ts
 * import { receiveRoutes, createPayments } from '@tollgate/core/gateway';
 * const routes = receiveRoutes({ payments: createPayments(deps) });
 * ```
 */
export function receiveRoutes(deps: ReceiveRouteDeps): Route[] {
  const { negotiation, settlement } = deps.payments;
  if ((deps.rateLimiter === undefined) !== (deps.rateLimit === undefined)) throw new TypeError('receiveRoutes needs rateLimiter and rateLimit together.');
  // After CORS, so a browser can read the 429.
  const limited: Middleware[] = deps.rateLimiter === undefined || deps.rateLimit === undefined ? [] : [gatewayRateLimit(deps.rateLimiter, 'receive', deps.rateLimit)];
  return [
    route({
      method: 'GET',
      path: '/receive/:payTo',
      middleware: [receiveCors, ...limited],
      handler: async (request) => {
        const receive = { payTo: request.params.payTo, query: request.query };
        const paymentSignature = request.headers['payment-signature'];
        if (paymentSignature === undefined || request.method === 'HEAD') {
          const negotiated = await negotiation.negotiate(receive);
          return { status: gatewayErrorCodes.payment_required.status, headers: { ...json, [paymentRequiredHeader]: negotiated.header }, body: negotiated.body };
        }
        return settlementHttpResponse(await settlement.settle({ ...receive, paymentSignature }), { message: pendingMessage });
      },
    }),
    route({
      method: 'OPTIONS',
      path: '/receive/:payTo',
      // A preflight is answered by the CORS middleware; a plain OPTIONS gets the allowed methods.
      middleware: [receiveCors],
      handler: () => ({ status: 204, headers: { allow: 'GET, HEAD, OPTIONS' } }),
    }),
  ];
}
