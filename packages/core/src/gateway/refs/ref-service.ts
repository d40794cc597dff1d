import { randomBytes, randomId, isHexId } from '../../crypto/random';
import { GatewayError } from '../../errors/gateway';
import type { AuthenticatedMerchant } from '../merchants/account-service';
import type { GatewayEvents } from '../gateway-events';
import { epochSeconds, resolvePublicUrl, type GatewayServiceDeps } from '../service-deps';
import type { GatewayStores } from '../store/gateway-stores';
import type { RefRecord, RefStatus } from '../store/records';
import { readListPage } from '../list-cursor';
import { refListCursor } from './cursor';
import { newPaymentRef, payToForNewRef, payToNotFound, refCreationRefused } from './payment-ref';
import type { RefSnapshot } from './ref-snapshot';
import type { CreateRefRequest, ListRefsRequest } from './schemas';

export type { RefSnapshot } from './ref-snapshot';

/** `POST /ref`: the new ref. */
export interface CreatedRef {
  readonly refId: string;
  readonly refUrl: string;
  readonly snapshot: RefSnapshot;
}

/** `GET /ref/:refId`: the public view of a ref. */
export interface PublicRef extends CreatedRef {
  readonly status: RefStatus;
}

/** One item of `GET /ref` (spec "Ref list item"); times are unix seconds. */
export interface RefListItem {
  readonly refId: string;
  readonly payTo: string;
  readonly network: string;
  readonly asset: string;
  readonly amount?: string;
  readonly invoiceId?: string;
  readonly label?: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly status: RefStatus;
}

/** `GET /ref`: a page, newest first. */
export interface RefPage {
  readonly items: readonly RefListItem[];
  readonly nextCursor?: string;
}

/** `POST /ref/:refId/revoke`: the revoked ref. */
export interface RevokedRef {
  readonly refId: string;
  readonly status: 'revoked';
  readonly revokedAt: number;
}

/** Dependencies of {@link createRefService}. */
export interface RefServiceDeps extends GatewayServiceDeps {
  /** `refs` for the refs, `merchants` for the payTo a ref is created on or listed for (owner, status, proof). */
  readonly stores: Pick<GatewayStores, 'refs' | 'merchants'>;
  /** Told `ref_revoked` after each successful revocation (`createGateway` passes its channel). */
  readonly events?: Pick<GatewayEvents, 'emit'>;
}

/** Creates, reads, lists and revokes refs. Every merchant-scoped call answers `not_found` for another merchant's ref or payTo. */
export interface RefService {
  /**
   * @throws GatewayError `invalid_request` (unknown network, contract-wallet payTo on another chain),
   *   `not_found` (payTo not the caller's), `payto_revoked`, `conflict` (invoiceId in use; `details.refId`).
   */
  createRef(caller: AuthenticatedMerchant, input: CreateRefRequest): Promise<CreatedRef>;
  /** @throws GatewayError `not_found`. */
  getRef(refId: string): Promise<PublicRef>;
  /** @throws GatewayError `not_found` (payTo not the caller's), `invalid_request` (bad cursor). */
  listRefs(caller: AuthenticatedMerchant, query: ListRefsRequest): Promise<RefPage>;
  /** Idempotent; emits `ref_revoked` once the store has revoked the ref. @throws GatewayError `not_found`. */
  revokeRef(caller: AuthenticatedMerchant, refId: string): Promise<RevokedRef>;
}

function refNotFound(): GatewayError {
  return new GatewayError('not_found', 'No such ref.');
}

function listItem(ref: RefRecord): RefListItem {
  return {
    refId: ref.id,
    payTo: ref.payTo,
    network: ref.network,
    asset: ref.asset,
    ...(ref.amount === null ? {} : { amount: ref.amount }),
    ...(ref.invoiceId === null ? {} : { invoiceId: ref.invoiceId }),
    ...(ref.label === null ? {} : { label: ref.label }),
    createdAt: epochSeconds(ref.createdAt),
    expiresAt: epochSeconds(ref.expiresAt),
    status: ref.status,
  };
}

/**
 * The ref half of the gateway API. A ref's snapshot is rendered once, stored as that exact JSON text,
 * and served from it ever after.
 *
 * @param deps - Ref and merchant stores, keys (cursor MAC), networks, public URL, clock, randomness and the event channel.
 * @returns The service.
 * @example
 * ```ts
 * import { createGatewayEvents, createSqlGatewayStores } from '@tollgate/core';
 * import { createRefService } from '@tollgate/core/gateway';
 * const refs = createRefService({ stores: createSqlGatewayStores(sql), events: createGatewayEvents(), keys, networks, publicUrl, clock });
 * const { refId, snapshot } = await refs.createRef(caller, { payTo, network: 'base', asset: 'USDC', amount: '10000' });
 * ```
 */
export function createRefService(deps: RefServiceDeps): RefService {
  const random = deps.random ?? randomBytes;
  const { refs, merchants } = deps.stores;
  const refUrl = (refId: string) => `${resolvePublicUrl(deps)}/ref/${refId}`;

  return {
    async createRef(caller, input) {
      const network = deps.networks.require(input.network);
      const payTo = await payToForNewRef(merchants, caller, input.payTo, network);
      const refId = randomId(random);
      const ref = newPaymentRef({ refId, merchantId: caller.merchantId, payTo: payTo.address, network: network.name, fields: input, origin: resolvePublicUrl(deps), now: new Date(deps.clock.now()) });
      const outcome = await refs.createRef(ref);
      if (outcome.kind !== 'created') throw refCreationRefused(outcome, { requested: input.payTo, address: payTo.address });
      return { refId, refUrl: refUrl(refId), snapshot: JSON.parse(outcome.ref.snapshotJson) as RefSnapshot };
    },

    async getRef(refId) {
      if (!isHexId(refId, 16)) throw refNotFound();
      const ref = await refs.getRef(refId);
      if (ref === undefined) throw refNotFound();
      return { refId: ref.id, refUrl: refUrl(ref.id), snapshot: JSON.parse(ref.snapshotJson) as RefSnapshot, status: ref.status };
    },

    async listRefs(caller, query) {
      const payTo = await merchants.getPayTo(query.pay_to);
      if (payTo === undefined || payTo.merchantId !== caller.merchantId) throw payToNotFound(query.pay_to);
      const scope = { merchantId: caller.merchantId, payTo: payTo.address };
      return readListPage({
        cursor: refListCursor,
        key: deps.keys.cursor,
        scope,
        request: query,
        read: (limit, before) => refs.listRefs({ ...scope, limit, ...(before === undefined ? {} : { before: { createdAt: before.createdAt, refId: before.id } }) }),
        item: listItem,
      });
    },

    async revokeRef(caller, refId) {
      if (!isHexId(refId, 16)) throw refNotFound();
      const revoked = await refs.revokeRef({ merchantId: caller.merchantId, refId, now: new Date(deps.clock.now()) });
      if (revoked === undefined || revoked.revokedAt === null) {
        const ref = await refs.getRef(refId);
        // The merchant's own ref that the store would not revoke belongs to an order or a refund intent.
        if (ref !== undefined && ref.merchantId === caller.merchantId) {
          throw new GatewayError('conflict', 'This ref belongs to an order or a refund intent: cancel the order or reject the refund instead.', {
            details: { reason: 'use_order_routes', refId, kind: ref.kind },
          });
        }
        throw refNotFound();
      }
      deps.events?.emit({ type: 'ref_revoked', refId: revoked.id });
      return { refId: revoked.id, status: 'revoked', revokedAt: epochSeconds(revoked.revokedAt) };
    },
  };
}
