import type { Route } from '../../http/types';
import { createMemoryRateLimiter } from '../../storage/rate-limit/memory-rate-limiter';
import type { RateLimiter } from '../../storage/rate-limit/rate-limiter';
import { createEvidenceServices, type EvidenceServices } from '../evidence/evidence-services';
import type { EvidenceOptions } from '../evidence/evidence-settings';
import { createGatewayEvents, type GatewayEvents } from '../gateway-events';
import { createMerchantAccountService, type MerchantAccountService } from '../merchants/account-service';
import { createRegistrationService, type RegistrationService } from '../merchants/registration-service';
import type { WalletSignatureVerifier } from '../merchants/signature-verifier';
import type { PaymentOptions } from '../payments/payment-deps';
import { createPayments, type Payments } from '../payments/payments';
import { createRefService, type RefService } from '../refs/ref-service';
import type { GatewayServiceDeps } from '../service-deps';
import type { GatewayStores } from '../store/gateway-stores';
import { createBearerAuth, type BearerAuth } from './bearer-auth';
import { merchantRoutes } from './merchant-routes';
import { createOrderService } from '../orders/order-service';
import { createRefundService } from '../orders/refund-service';
import { orderRoutes } from './order-routes';
import { refundRoutes } from './refund-routes';
import { payPageRoutes } from './pay-page-routes';
import { createEvidenceAccess, evidenceRoutes, type EvidenceAccess } from './evidence-routes';
import { defaultEvidenceRateLimits, defaultGatewayRateLimits, type EvidenceRateLimits, type GatewayRateLimits } from './rate-limit';
import { receiveRoutes } from './receive-routes';
import { recoverSettlementRoutes } from './recovery-routes';
import { refRoutes } from './ref-routes';
import type { OperationGroup } from '../../openapi/descriptors';
import { gatewayOperationGroups } from '../openapi/gateway-operations';
import { openApiRoutes } from './openapi-routes';

/** Everything {@link wireGateway} wires together (what `createGateway` resolved from its deps). */
export interface GatewayWiring extends GatewayServiceDeps {
  /** The three stores over one database (`createSqlGatewayStores(sql)`). */
  readonly stores: GatewayStores;
  /**
   * Where the services tell what they changed (`ref_revoked`, `payto_retired`). Default: a new channel.
   * Pass one to listen as well (for example to log revocations).
   */
  readonly events?: GatewayEvents;
  readonly signatureVerifier: WalletSignatureVerifier;
  /** Limiter of the public routes (`createSqlRateLimiter` so that every instance shares the budget). */
  readonly rateLimiter: RateLimiter;
  /**
   * Limiter of `/receive`. Default: an in-memory limiter per instance (`createMemoryRateLimiter`, up to
   * 50 000 client addresses), because a shared SQL limiter would add a database write to every 402, which
   * otherwise reads nothing from the database. With N instances a client gets up to N times the limit.
   */
  readonly receiveRateLimiter?: RateLimiter;
  /** Per-route limits; {@link defaultGatewayRateLimits} by default. */
  readonly rateLimits?: GatewayRateLimits;
  /** x402 payments (signing key, facilitator, chain clients); without them `/receive` is not served. */
  readonly payments?: PaymentOptions;
  /**
   * Chain evidence: `/verify-receipt`, `/tx/:txHash` and `/txs` (chain clients, previous receipt signers,
   * deployment policy, bounds); without it those routes are not served. The current receipt signer is
   * the payment signer's address unless `evidence.receiptSigner` names another. Its `access` policy also
   * governs `/recover-settlement`, which is served with `payments` alone (`public` without `evidence`).
   */
  readonly evidence?: EvidenceOptions;
  /**
   * Limiter of the evidence routes. Default: in memory per instance (`createMemoryRateLimiter`, up to
   * 50 000 client addresses), like `/receive`: these routes read the chain, not the database, and a shared
   * SQL limiter would add a database write to each. With N instances a client gets up to N times the limit.
   */
  readonly evidenceRateLimiter?: RateLimiter;
  /** Per-route limits of the evidence routes; {@link defaultEvidenceRateLimits} by default. */
  readonly evidenceRateLimits?: EvidenceRateLimits;
  /**
   * `GET /openapi.json` lists the operations of the routes this gateway serves; `operations` adds those of
   * routes the host serves beside them (`tollgate-gateway` passes `healthOperations` for `/healthz`).
   */
  readonly openapi?: { readonly operations?: readonly OperationGroup[] };
  /**
   * Order mode: the order and refund routes (`/order…`, `/refund-receipt/rejected`), served with
   * `payments` only (refund receipts are signed with the payment key). Default off: every order path
   * then answers 404 `not_found`.
   */
  readonly orderMode?: boolean;
}

/** The gateway's services, its bearer authentication and its route table entries. */
export interface WiredGateway {
  readonly registration: RegistrationService;
  readonly accounts: MerchantAccountService;
  readonly refs: RefService;
  readonly auth: BearerAuth;
  /** The channel the services emit on: `deps.events`, or the one created for this gateway. */
  readonly events: GatewayEvents;
  /** Negotiation, settlement, receipts and recovery, when `deps.payments` was given. */
  readonly payments: Payments | undefined;
  /** Receipt verification, transaction status and transfer history, when `deps.evidence` was given. */
  readonly evidence: EvidenceServices | undefined;
  /**
   * The deployment policy of the evidence routes and `/recover-settlement` (`deps.evidence.access`,
   * `public` by default): mount any other chain-evidence route behind `evidenceAccess.middleware(…)`.
   */
  readonly evidenceAccess: EvidenceAccess;
  /**
   * Every merchant, ref, receive and evidence route (`/recover-settlement` with payments, behind
   * `evidenceAccess`); serve them with `defineRoutes({ routes, renderError: renderGatewayError })`.
   */
  readonly routes: Route[];
}

/**
 * Wires the gateway's merchant, ref, payment and chain-evidence features: services over the stores each
 * one needs, bearer auth, rate limits (`/receive` per instance, in memory, unless `receiveRateLimiter`
 * says otherwise) and routes. The negotiation's status cache listens to `events`, so revoking a ref or
 * retiring a payTo through this instance is seen by its next 402 at once. `createGateway` calls it and
 * adds the workers and the fetch handler; embedders use `createGateway`.
 *
 * @param deps - Stores, keys, networks, public URL, clock, signature verifier, rate limiter, events and payments.
 * @returns Services, auth and routes.
 * @example
 * ```ts
 * import { wireGateway } from './gateway-routes';
 * const { routes, payments } = wireGateway({ stores, keys, networks, publicUrl, clock, signatureVerifier, rateLimiter });
 * ```
 */
export function wireGateway(deps: GatewayWiring): WiredGateway {
  const events = deps.events ?? createGatewayEvents();
  const payments = deps.payments === undefined ? undefined : createPayments({ ...deps, ...deps.payments });
  if (payments !== undefined) {
    // Revoking a ref or retiring a payTo through this instance is seen by its next negotiation at once.
    const { contexts } = payments;
    events.subscribe((event) => {
      if (event.type === 'ref_revoked') contexts.forgetRef(event.refId);
      else if (event.type === 'payto_retired') contexts.forgetPayTo(event.address);
    });
  }
  const services = { ...deps, events };
  const registration = createRegistrationService(services);
  const accounts = createMerchantAccountService(services);
  const refs = createRefService(services);
  const auth = createBearerAuth(accounts);
  const rateLimits = deps.rateLimits ?? defaultGatewayRateLimits;
  const evidence = deps.evidence === undefined ? undefined : createEvidenceServices({ ...services, evidence: deps.evidence, paymentSigner: deps.payments?.signer.address });
  const evidenceAccess = createEvidenceAccess({
    mode: deps.evidence?.access ?? 'public',
    auth,
    stores: deps.stores,
    rateLimiter: deps.evidenceRateLimiter ?? createMemoryRateLimiter({ clock: deps.clock, maxKeys: 50_000 }),
    rateLimits: deps.evidenceRateLimits ?? defaultEvidenceRateLimits,
  });
  const routes = [
    ...merchantRoutes({ registration, accounts, auth, rateLimiter: deps.rateLimiter, rateLimits }),
    ...refRoutes({ refs, auth, rateLimiter: deps.rateLimiter, rateLimits }),
    ...(payments === undefined
      ? []
      : receiveRoutes({ payments, rateLimiter: deps.receiveRateLimiter ?? createMemoryRateLimiter({ clock: deps.clock, maxKeys: 50_000 }), rateLimit: rateLimits.receive })),
    // Recovery reads the chain like the evidence routes, so it follows their policy and limits.
    ...(payments === undefined
      ? []
      : recoverSettlementRoutes({ payments, middleware: evidenceAccess.middleware('recoverSettlement'), viewerOf: (request) => evidenceAccess.viewerOf(request) })),
    ...(evidence === undefined ? [] : evidenceRoutes({ evidence, access: evidenceAccess })),
    // Order mode: orders pay through /receive and refunds are signed with the payment key, so both need payments.
    ...(deps.orderMode !== true || payments === undefined ? [] : orderRoutes({ orders: createOrderService(services), auth })),
    ...(deps.orderMode !== true || deps.payments === undefined
      ? []
      : refundRoutes({
          refunds: createRefundService({
            ...services,
            signer: deps.payments.signer,
            // The receipt keys /verify-receipt accepts: the current one (the payment key unless evidence names another) and rotated-out ones.
            acceptedReceiptSigners: [deps.payments.signer.address, ...(deps.evidence?.receiptSigner === undefined ? [] : [deps.evidence.receiptSigner]), ...(deps.evidence?.previousReceiptSigners ?? [])],
          }),
          auth,
        })),
    // The wallet page pays through /receive, so it is served with payments only; page views get the ref lookup rule.
    ...(payments === undefined
      ? []
      : payPageRoutes({
          refs: deps.stores.refs,
          networks: deps.networks,
          clock: deps.clock,
          rateLimiter: deps.rateLimiter,
          rateLimit: rateLimits.refLookup,
          publicTxStatus: evidence !== undefined && evidenceAccess.mode === 'public',
        })),
  ];
  // The document describes the final table (this route included), so it reads `routes` at its first request.
  routes.push(...openApiRoutes({ routes: () => routes, groups: gatewayOperationGroups({ evidenceAccess: evidenceAccess.mode }), hostGroups: deps.openapi?.operations }));
  return { registration, accounts, refs, auth, events, payments, evidence, evidenceAccess, routes };
}
