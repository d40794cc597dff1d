import { isHexId } from '../../crypto/random';
import type { GatewayNetwork, NetworkRegistry } from '../networks';
import type { RefSnapshot } from '../refs/ref-service';
import { epochSeconds } from '../service-deps';
import type { RefStore } from '../store/ref-store';

/**
 * What the pay page of a ref shows: the ref when it can be paid, otherwise why not. Expected outcomes,
 * so a union rather than exceptions; the order of the checks is the receive route's (`assertPayable`):
 * expiry first (also for a revoked ref, as the spec's state table says), then revocation, then a
 * retired payTo, so the page never promises what `/receive` would refuse.
 */
export type PayPageView =
  | {
      readonly kind: 'payable';
      readonly refId: string;
      /** The public snapshot, exactly as `GET /ref/:refId` serves it. */
      readonly snapshot: RefSnapshot;
      /** The ref's network from the registry (chain id, USDC decimals). */
      readonly network: GatewayNetwork;
      /** A refund ref's `sha256:<receiptHash>`, which `/receive` requires in its query; absent for payment refs. */
      readonly refundOf?: string;
    }
  /** No such ref, or not a ref id at all. */
  | { readonly kind: 'not_found' }
  /** Past its expiry (unix seconds), revoked or not. */
  | { readonly kind: 'expired'; readonly expiresAt: number }
  | { readonly kind: 'revoked' }
  /** Its payTo was retired by the merchant. */
  | { readonly kind: 'payto_retired' }
  /** Its network is no longer configured on this gateway (a deployment change). */
  | { readonly kind: 'network_unavailable'; readonly network: string };

/** What {@link loadPayPageView} reads. */
export interface PayPageViewDeps {
  /** One indexed read: the ref and its payTo's status. */
  readonly refs: Pick<RefStore, 'getPaymentTarget'>;
  readonly networks: Pick<NetworkRegistry, 'byName'>;
}

/**
 * Reads what the pay page of `refId` shows, in one store query. A malformed id is `not_found` without a
 * query. Never throws for an expected outcome; a store failure propagates.
 *
 * @param deps - The ref store and the network registry.
 * @param refId - The id from the path, untrusted.
 * @param nowSeconds - The gateway clock in unix seconds.
 * @returns The view.
 * @example
 * ```ts
 * import { loadPayPageView } from '@tollgate/core/gateway';
 * const view = await loadPayPageView({ refs: stores.refs, networks }, refId, Math.floor(clock.now() / 1000));
 * if (view.kind === 'payable') console.log(view.snapshot.amount);
 * ```
 */
export async function loadPayPageView(deps: PayPageViewDeps, refId: string, nowSeconds: number): Promise<PayPageView> {
  if (!isHexId(refId, 16)) return { kind: 'not_found' };
  const target = await deps.refs.getPaymentTarget(refId);
  if (target === undefined) return { kind: 'not_found' };
  const { ref, payToStatus } = target;
  const expiresAt = epochSeconds(ref.expiresAt);
  if (nowSeconds >= expiresAt) return { kind: 'expired', expiresAt };
  if (ref.status === 'revoked') return { kind: 'revoked' };
  if (payToStatus === 'retired') return { kind: 'payto_retired' };
  const network = deps.networks.byName(ref.network);
  if (network === undefined) return { kind: 'network_unavailable', network: ref.network };
  return {
    kind: 'payable',
    refId: ref.id,
    snapshot: JSON.parse(ref.snapshotJson) as RefSnapshot,
    network,
    ...(ref.kind === 'refund' && ref.refundOf !== null ? { refundOf: ref.refundOf } : {}),
  };
}
