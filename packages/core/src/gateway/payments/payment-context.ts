import { isHexId } from '../../crypto/random';
import { GatewayError } from '../../errors/gateway';
import { REFUND_OF_PATTERN } from '../../x402/refund-receipt';
import { buildPaymentRequirements } from '../../x402/requirements';
import type { PaymentRequirements, ResourceInfo } from '../../x402/wire';
import type { GatewayNetwork } from '../networks';
import { parseAtomicAmount } from '../refs/amount';
import type { RefSnapshot } from '../refs/ref-service';
import { epochSeconds } from '../service-deps';
import type { GatewayStores } from '../store/gateway-stores';
import type { NewPaymentClaim } from '../store/payment-records';
import type { PayToStatus, RefRecord, RefStatus } from '../store/records';
import { createBoundedCache } from './bounded-cache';
import type { PaymentDeps, PaymentIdentity, PaymentSettings } from './payment-deps';

/** A receive request as the payment services see it: the path's payTo and the query. */
export interface ReceiveRequest {
  readonly payTo: string;
  readonly query: Readonly<Record<string, string>>;
}

/** The immutable facts of one (ref, amount): derived once and cached. */
export interface PaymentTerms {
  /** The ref's network from the registry: what the x402 building blocks take. */
  readonly network: GatewayNetwork;
  readonly amount: string;
  /** The one `accepts[]` entry, frozen: every request regenerates exactly this value. */
  readonly requirements: Readonly<PaymentRequirements>;
  readonly resource: ResourceInfo;
  readonly snapshot: RefSnapshot;
  /** `<refId>:<amount>`, the key of every per-terms cache. */
  readonly key: string;
}

/**
 * A resolved receive request: the ref's immutable facts (cached; its `status` and `revokedAt` are as of
 * the first read, so read `refStatus` instead), the statuses read for this request, and the cached terms.
 */
export interface PaymentContext extends PaymentTerms {
  readonly ref: RefRecord;
  readonly refStatus: RefStatus;
  readonly payToStatus: PayToStatus;
}

/** Resolves receive requests into payment contexts. */
export interface PaymentContexts {
  /**
   * Reads the ref's and its payTo's status (one indexed query; the whole ref on first sight, its
   * immutable facts are cached) and derives the terms.
   *
   * @throws GatewayError `invalid_request` (no `ref`, an open ref without a valid `amount`, a fixed ref
   *   with another `amount`; `refundOf` (`details.field`) while order mode is off (`not_enabled`), malformed
   *   (`refund_of_malformed`), on a payment ref (`not_a_refund_ref`), missing on a refund ref
   *   (`refund_of_required`) or naming another receipt than the refund ref's (`refund_of_mismatch`)),
   *   `not_found` (unknown ref, or a ref of another payTo).
   */
  resolve(request: ReceiveRequest): Promise<PaymentContext>;
  /**
   * Refuses a ref that can no longer be paid at `nowSeconds`: `ref_expired` (expiry wins, also for a
   * revoked ref, as the spec's state table says), then `ref_revoked`, then `payto_revoked`.
   */
  assertPayable(context: PaymentContext, nowSeconds: number): void;
  /** Drops the cached status of a ref (`createGateway` calls it on each `ref_revoked` gateway event). */
  forgetRef(refId: string): void;
  /** Drops the cached statuses of every ref of a payTo (`createGateway` calls it on each `payto_retired` gateway event). */
  forgetPayTo(address: string): void;
}

interface CachedStatus {
  readonly refStatus: RefStatus;
  readonly payToStatus: PayToStatus;
  readonly payTo: string;
  readonly readAt: number;
}

function refNotFound(): GatewayError {
  return new GatewayError('not_found', 'No such ref for this payTo.');
}

function invalidRefundOf(message: string, reason: string): GatewayError {
  return new GatewayError('invalid_request', message, { details: { field: 'refundOf', reason } });
}

function invalidAmount(message: string, details: Record<string, unknown>): GatewayError {
  return new GatewayError('invalid_request', message, { details: { field: 'amount', ...details } });
}

/**
 * Creates the resolver of receive requests. A ref's fields never change except its status, and the
 * terms of a (ref, amount) never change, so both are cached (bounded, least recently used); the mutable
 * facts (ref revoked, payTo retired) come from the one read every request makes, and expiry from the
 * clock.
 *
 * What invalidates the caches:
 * - the status of a ref (and its payTo's): its age, after `settings.statusCacheMs`; {@link PaymentContexts.forgetRef}
 *   and {@link PaymentContexts.forgetPayTo}, which `createGateway` calls on the `ref_revoked` and
 *   `payto_retired` events of its `GatewayEvents` (so a revocation through this instance is seen by its next
 *   402 at once, and one through another instance within `statusCacheMs`);
 * - nothing else: a ref's other fields and the terms of a (ref, amount) never change, and a network
 *   removed from the configuration takes a restart, which empties every cache.
 *
 * @param deps - Ref store, networks, clock.
 * @returns The resolver.
 *
 * @example
 * ```ts
 * import { resolvePaymentSettings } from '@tollgate/core';
 * import { createPaymentContexts } from '@tollgate/core/gateway';
 * const contexts = createPaymentContexts({ stores: { refs }, networks, clock }, resolvePaymentSettings());
 * const context = await contexts.resolve({ payTo, query: { ref: refId } });
 * ```
 */
export function createPaymentContexts(
  deps: Pick<PaymentDeps, 'networks' | 'clock' | 'orderMode'> & { readonly stores: Pick<GatewayStores, 'refs'> },
  settings: PaymentSettings,
): PaymentContexts {
  const { refs: refStore } = deps.stores;
  const orderMode = deps.orderMode === true;
  const terms = createBoundedCache<PaymentTerms>(settings.cacheSize);
  const refs = createBoundedCache<RefRecord>(settings.cacheSize);
  const statuses = createBoundedCache<CachedStatus>(settings.cacheSize);

  function remember(ref: RefRecord, refStatus: RefStatus, payToStatus: PayToStatus): void {
    if (settings.statusCacheMs > 0) statuses.set(ref.id, { refStatus, payToStatus, payTo: ref.payTo.toLowerCase(), readAt: deps.clock.now() });
  }

  /** The ref and the statuses: from the caches while the status read is recent, else in one query either way. */
  async function read(refId: string): Promise<{ ref: RefRecord; refStatus: RefStatus; payToStatus: PayToStatus } | undefined> {
    const known = refs.get(refId);
    if (known !== undefined) {
      const cached = statuses.get(refId);
      if (cached !== undefined && deps.clock.now() - cached.readAt < settings.statusCacheMs) {
        return { ref: known, refStatus: cached.refStatus, payToStatus: cached.payToStatus };
      }
      const status = await refStore.getPaymentStatus(refId);
      if (status === undefined) return undefined;
      remember(known, status.refStatus, status.payToStatus);
      return { ref: known, ...status };
    }
    const target = await refStore.getPaymentTarget(refId);
    if (target === undefined) return undefined;
    refs.set(refId, target.ref);
    remember(target.ref, target.ref.status, target.payToStatus);
    return { ref: target.ref, refStatus: target.ref.status, payToStatus: target.payToStatus };
  }

  /**
   * A refund ref pays an order's payer back and is bound to the original receipt: it is paid only with
   * that receipt's `refundOf`, and only in order mode (a refund ref left from a time order mode was on is
   * refused like a `refundOf` is). A payment ref never takes `refundOf`.
   */
  function assertRefundBinding(ref: RefRecord, refundOf: string | undefined): void {
    if (ref.kind !== 'refund') {
      if (refundOf !== undefined) throw invalidRefundOf('This ref is not a refund ref: leave refundOf out.', 'not_a_refund_ref');
      return;
    }
    if (!orderMode) throw invalidRefundOf('Refund payments are not enabled on this gateway.', 'not_enabled');
    if (refundOf === undefined) {
      throw invalidRefundOf('This is a refund ref: add refundOf=sha256:<receiptHash> of the payment it refunds to the query.', 'refund_of_required');
    }
    if (refundOf !== ref.refundOf) throw invalidRefundOf('refundOf does not name the receipt this refund ref pays back.', 'refund_of_mismatch');
  }

  function amountOf(ref: RefRecord, requested: string | undefined): string {
    if (ref.amount !== null) {
      if (requested !== undefined && requested !== ref.amount) {
        throw invalidAmount('This ref has a fixed amount; leave amount out or send exactly that amount.', { reason: 'fixed_amount_mismatch', amount: ref.amount });
      }
      return ref.amount;
    }
    if (requested === undefined) throw invalidAmount('This is an open ref: add amount=<atomic units> to the query.', { reason: 'amount_required' });
    if (parseAtomicAmount(requested) === undefined) {
      throw invalidAmount('amount must be a positive atomic amount: decimal digits without sign, exponent, fraction or leading zero, below 2^256.', {
        reason: 'amount_malformed',
      });
    }
    return requested;
  }

  function termsOf(ref: RefRecord, amount: string): PaymentTerms {
    const key = `${ref.id}:${amount}`;
    const cached = terms.get(key);
    if (cached !== undefined) return cached;
    const network = deps.networks.byName(ref.network);
    // A network removed from the configuration after the ref was created cannot be paid any more.
    if (network === undefined) throw new GatewayError('not_found', 'This ref’s network is not served by this gateway any more.', { details: { network: ref.network } });
    const snapshot = JSON.parse(ref.snapshotJson) as RefSnapshot;
    const created: PaymentTerms = {
      network,
      amount,
      requirements: buildPaymentRequirements({ network, payTo: ref.payTo, amount, maxTimeoutSeconds: settings.maxTimeoutSeconds }),
      resource: Object.freeze({
        url: snapshot.resource,
        ...(snapshot.description === undefined ? {} : { description: snapshot.description }),
        mimeType: snapshot.mimeType,
      }),
      snapshot,
      key,
    };
    terms.set(key, created);
    return created;
  }

  return {
    async resolve(request) {
      const { query } = request;
      const refundOf = query['refundOf'];
      if (refundOf !== undefined && !orderMode) throw invalidRefundOf('Refund payments are not enabled on this gateway.', 'not_enabled');
      if (refundOf !== undefined && !REFUND_OF_PATTERN.test(refundOf)) {
        throw invalidRefundOf('refundOf must be sha256:<64 lowercase hex digits>, the original receipt’s hash.', 'refund_of_malformed');
      }
      const refId = query['ref'];
      if (refId === undefined || refId === '') throw new GatewayError('invalid_request', 'The query needs ref=<refId>.', { details: { field: 'ref' } });
      if (!isHexId(refId, 16) || !/^0x[0-9a-fA-F]{40}$/.test(request.payTo)) throw refNotFound();
      const target = await read(refId);
      // Another payTo's ref is answered exactly like a missing one.
      if (target === undefined || target.ref.payTo.toLowerCase() !== request.payTo.toLowerCase()) throw refNotFound();
      assertRefundBinding(target.ref, refundOf);
      return { ...termsOf(target.ref, amountOf(target.ref, query['amount'])), ...target };
    },

    assertPayable(context, nowSeconds) {
      const expiresAt = epochSeconds(context.ref.expiresAt);
      if (nowSeconds >= expiresAt) throw new GatewayError('ref_expired', 'This ref has expired.', { details: { refId: context.ref.id, expiresAt } });
      if (context.refStatus === 'revoked') throw new GatewayError('ref_revoked', 'This ref was revoked by its merchant.', { details: { refId: context.ref.id } });
      if (context.payToStatus === 'retired') {
        throw new GatewayError('payto_revoked', 'This payTo was retired by its merchant.', { details: { payTo: context.ref.payTo } });
      }
    },

    forgetRef(refId) {
      statuses.delete(refId);
    },

    forgetPayTo(address) {
      const payTo = address.toLowerCase();
      for (const [refId, status] of statuses.entries()) if (status.payTo === payTo) statuses.delete(refId);
    },
  };
}

/**
 * The claim of the payment `identity` on `context`'s ref, leased to `leaseToken` for `settings.leaseMs`
 * from `now` (epoch ms); `settleStarted` records the settle mark in the same statement. Settlement and
 * recovery claim the same way, so a recovered payment's row is indistinguishable from a settled one's.
 *
 * @example
 * ```ts
 * const outcome = await stores.payments.claimPayment(paymentClaim(identity, context, { leaseToken: randomId(), now: clock.now(), leaseMs: settings.leaseMs, settleStarted: true }));
 * ```
 */
export function paymentClaim(
  identity: PaymentIdentity,
  context: PaymentContext,
  lease: { readonly leaseToken: string; readonly now: number; readonly leaseMs: number; readonly settleStarted: boolean },
): NewPaymentClaim {
  return {
    ...identity,
    refId: context.ref.id,
    merchantId: context.ref.merchantId,
    network: context.network.name,
    payTo: context.ref.payTo,
    amount: context.amount,
    leaseToken: lease.leaseToken,
    leaseUntil: new Date(lease.now + lease.leaseMs),
    now: new Date(lease.now),
    settleStarted: lease.settleStarted,
  };
}
