import * as v from 'valibot';
import type { Hash } from 'viem';
import { GatewayError } from '../../errors/gateway';
import { route } from '../../http/routes';
import type { HttpRequest, Middleware, Route } from '../../http/types';
import type { RateLimiter } from '../../storage/rate-limit/rate-limiter';
import type { EvidenceServices } from '../evidence/evidence-services';
import type { EvidenceAccessMode } from '../evidence/evidence-settings';
import { anyoneViewer, type EvidenceViewer } from '../evidence/evidence-viewer';
import { txHashSchema, txHistoryQuerySchema, txStatusQuerySchema, verifyReceiptRequestSchema, verifyRefundReceiptRequestSchema } from '../evidence/schemas';
import type { GatewayStores } from '../store/gateway-stores';
import type { BearerAuth } from './bearer-auth';
import { noStore } from './merchant-routes';
import { parseGatewayInput } from './parse-input';
import { gatewayRateLimit, type EvidenceRateLimits } from './rate-limit';

/**
 * The deployment policy of the chain-evidence routes (`/verify-receipt`, `/tx/:txHash`, `/txs`, and
 * `/recover-settlement`, which mounts it too): reusable by any route that serves chain evidence.
 */
export interface EvidenceAccess {
  readonly mode: EvidenceAccessMode;
  /**
   * The middleware of one evidence route, run before its body is read: the route's per-address rate
   * limit (`rate_limited` with `Retry-After`), then, under the `merchant` policy, bearer authentication
   * (`unauthorized`). Rate limiting comes first so unauthenticated floods never reach the key lookup.
   */
  middleware(route: keyof EvidenceRateLimits): Middleware[];
  /**
   * Who the request is: {@link anyoneViewer} under the `public` policy (an `Authorization` header is then
   * ignored), else the authenticated merchant with its payTo addresses (active and retired).
   */
  viewerOf(request: HttpRequest): Promise<EvidenceViewer>;
}

/** What {@link createEvidenceAccess} needs. */
export interface EvidenceAccessDeps {
  readonly mode: EvidenceAccessMode;
  readonly auth: BearerAuth;
  readonly stores: Pick<GatewayStores, 'merchants'>;
  readonly rateLimiter: RateLimiter;
  readonly rateLimits: EvidenceRateLimits;
}

/**
 * Builds the evidence routes' deployment policy.
 *
 * @param deps - Mode, bearer auth, the merchant store (payTos of a merchant viewer), limiter and limits.
 * @returns The policy.
 * @example
 * ```ts
 * import { route } from '@tollgate/core/http';
 * import { createEvidenceAccess, defaultEvidenceRateLimits } from '@tollgate/core/gateway';
 * const access = createEvidenceAccess({ mode: 'merchant', auth, stores, rateLimiter, rateLimits: defaultEvidenceRateLimits });
 * const recover = route({ method: 'POST', path: '/recover-settlement', middleware: access.middleware('recoverSettlement'), body: { type: 'json', maxBytes: 32_768 },
 *   handler: async (request) => ({ status: 200, body: await recovery.recover(request.body, await access.viewerOf(request)) }) });
 * ```
 */
export function createEvidenceAccess(deps: EvidenceAccessDeps): EvidenceAccess {
  const { mode, auth } = deps;
  return {
    mode,
    middleware: (name) => [gatewayRateLimit(deps.rateLimiter, name, deps.rateLimits[name]), ...(mode === 'merchant' ? [auth.required] : [])],
    async viewerOf(request) {
      if (mode === 'public') return anyoneViewer;
      const { merchantId } = await auth.merchantOf(request);
      const merchant = await deps.stores.merchants.getMerchant(merchantId);
      return { kind: 'merchant', merchantId, payTos: new Set((merchant?.payTos ?? []).map((payTo) => payTo.address.toLowerCase())) };
    },
  };
}

/** Body cap of `POST /verify-receipt` and `/verify-refund-receipt`: a receipt and its signature are under 2 KiB (with the original receipt, under 4 KiB). */
export const verifyReceiptBodyLimit = 16 * 1024;

/** What {@link evidenceRoutes} needs. */
export interface EvidenceRouteDeps {
  readonly evidence: EvidenceServices;
  readonly access: EvidenceAccess;
}

/**
 * The chain-evidence routes: `POST /verify-receipt`, `POST /verify-refund-receipt`, `GET /tx/:txHash`
 * and `GET /txs`, each behind `access.middleware(…)` (`/verify-refund-receipt` shares `/verify-receipt`'s
 * rate-limit budget). Answers are `no-store`: confirmations change with every block.
 *
 * @param deps - The evidence services and the deployment policy.
 * @returns The routes.
 * @example
 * ```ts
 * import { evidenceRoutes } from '@tollgate/core/gateway';
 * const routes = evidenceRoutes({ evidence, access });
 * ```
 */
export function evidenceRoutes(deps: EvidenceRouteDeps): Route[] {
  const { evidence, access } = deps;
  return [
    route({
      method: 'POST',
      path: '/verify-receipt',
      middleware: access.middleware('verifyReceipt'),
      body: { type: 'json', maxBytes: verifyReceiptBodyLimit },
      handler: async (request) => {
        const body = parseGatewayInput(verifyReceiptRequestSchema, request.body);
        const viewer = await access.viewerOf(request);
        return { status: 200, headers: noStore, body: await evidence.receipts.verify({ ...body, viewer }) };
      },
    }),
    // Same policy and rate-limit budget as /verify-receipt: the same kind of work (a signature, stored
    // reads, one transaction read), so a client cannot double its budget by alternating the two.
    route({
      method: 'POST',
      path: '/verify-refund-receipt',
      middleware: access.middleware('verifyReceipt'),
      body: { type: 'json', maxBytes: verifyReceiptBodyLimit },
      handler: async (request) => {
        const body = parseGatewayInput(verifyRefundReceiptRequestSchema, request.body);
        const viewer = await access.viewerOf(request);
        return { status: 200, headers: noStore, body: await evidence.refundReceipts.verify({ ...body, viewer }) };
      },
    }),
    route({
      method: 'GET',
      path: '/tx/:txHash',
      middleware: access.middleware('txStatus'),
      handler: async (request) => {
        if (!v.is(txHashSchema, request.params.txHash)) {
          throw new GatewayError('invalid_request', 'txHash: expected a transaction hash (0x followed by 64 hex digits).', { details: { field: 'txHash' } });
        }
        const query = parseGatewayInput(txStatusQuerySchema, request.query);
        const viewer = await access.viewerOf(request);
        return { status: 200, headers: noStore, body: await evidence.txs.status({ txHash: request.params.txHash as Hash, network: query.network, viewer }) };
      },
    }),
    route({
      method: 'GET',
      path: '/txs',
      middleware: access.middleware('txHistory'),
      handler: async (request) => {
        const query = parseGatewayInput(txHistoryQuerySchema, request.query);
        const viewer = await access.viewerOf(request);
        const page = await evidence.history.page({
          network: query.network,
          payTo: query.pay_to,
          from: query.from,
          fromBlock: query.from_block,
          limit: query.limit,
          cursor: query.cursor,
          viewer,
        });
        return { status: 200, headers: noStore, body: page };
      },
    }),
  ];
}
