import { GatewayError } from '../../errors/gateway';
import type { AuthenticatedMerchant } from '../merchants/account-service';
import type { GatewayNetwork } from '../networks';
import type { MerchantStore } from '../store/merchant-store';
import type { NewRefRecord, PayToRecord } from '../store/records';
import type { CreateRefOutcome } from '../store/ref-store';
import { buildRefSnapshot } from './ref-snapshot';
import { defaultRefLifetimeSeconds, type CreateRefRequest } from './schemas';

/**
 * What `POST /ref` and `POST /order` share: a payment ref on one of the caller's payTos, checked and
 * built the same way, so an order's ref is exactly the ref `POST /ref` would make with the same fields.
 *
 * @module
 */

/**
 * The `not_found` of a payTo that is missing or another merchant's (the two look the same).
 *
 * @param payTo - The address as requested.
 * @returns The error.
 * @example
 * ```ts
 * throw payToNotFound(input.payTo);
 * ```
 */
export function payToNotFound(payTo: string): GatewayError {
  return new GatewayError('not_found', 'No payTo with this address is registered to this merchant.', { details: { field: 'payTo', payTo } });
}

function payToRetired(address: string): GatewayError {
  return new GatewayError('payto_revoked', 'This payTo was retired.', { details: { payTo: address } });
}

/**
 * The caller's active payTo that a new payment ref on `network` may pay.
 *
 * @param merchants - The merchant store.
 * @param caller - The authenticated merchant.
 * @param address - The requested payTo.
 * @param network - The ref's network.
 * @returns The payTo record (its `address` is the stored spelling).
 * @throws GatewayError `not_found` (not the caller's), `payto_revoked` (retired), `invalid_request` (a
 *   contract wallet proven on another network).
 * @example
 * ```ts
 * const payTo = await payToForNewRef(deps.stores.merchants, caller, input.payTo, deps.networks.require(input.network));
 * ```
 */
export async function payToForNewRef(
  merchants: Pick<MerchantStore, 'getPayTo'>,
  caller: AuthenticatedMerchant,
  address: string,
  network: Pick<GatewayNetwork, 'name'>,
): Promise<PayToRecord> {
  const payTo = await merchants.getPayTo(address);
  if (payTo === undefined || payTo.merchantId !== caller.merchantId) throw payToNotFound(address);
  if (payTo.status === 'retired') throw payToRetired(payTo.address);
  // A contract wallet's owner on one chain says nothing about the same address on another chain.
  if (payTo.proof === 'erc1271' && payTo.proofNetwork !== network.name) {
    throw new GatewayError('invalid_request', `This payTo is a contract wallet proven on ${payTo.proofNetwork} only.`, {
      details: { field: 'network', provenNetwork: payTo.proofNetwork },
    });
  }
  return payTo;
}

/** The ref fields of a `POST /ref` or `POST /order` body. */
export type PaymentRefFields = Pick<CreateRefRequest, 'asset' | 'amount' | 'invoiceId' | 'label' | 'description' | 'expiresInSecs' | 'notifyUrl'>;

/**
 * The record of a new payment ref, with its snapshot rendered once (the stored JSON text is served ever
 * after) and its expiry from `expiresInSecs` (default {@link defaultRefLifetimeSeconds}).
 *
 * @param params - The ref id, owner, checked payTo address, network, requested fields, public origin and time.
 * @returns The record to store.
 * @example
 * ```ts
 * const ref = newPaymentRef({ refId, merchantId: caller.merchantId, payTo: payTo.address, network: network.name, fields: input, origin, now: new Date() });
 * ```
 */
export function newPaymentRef(params: {
  readonly refId: string;
  readonly merchantId: string;
  readonly payTo: string;
  readonly network: string;
  readonly fields: PaymentRefFields;
  readonly origin: string;
  readonly now: Date;
}): NewRefRecord {
  const { refId, payTo, network, fields, now } = params;
  const expiresAt = Math.floor(now.getTime() / 1000) + (fields.expiresInSecs ?? defaultRefLifetimeSeconds);
  const snapshot = buildRefSnapshot({
    network,
    payTo,
    asset: fields.asset,
    amount: fields.amount,
    resource: `${params.origin}/receive/${payTo}?ref=${refId}`,
    invoiceId: fields.invoiceId,
    description: fields.description,
    expiresAt,
  });
  return {
    id: refId,
    merchantId: params.merchantId,
    payTo,
    network,
    asset: fields.asset,
    amount: fields.amount ?? null,
    invoiceId: fields.invoiceId ?? null,
    label: fields.label ?? null,
    notifyUrl: fields.notifyUrl ?? null,
    snapshotJson: JSON.stringify(snapshot),
    createdAt: now,
    expiresAt: new Date(expiresAt * 1000),
  };
}

/**
 * The error of a creation the store refused (its payTo checks run again in the insert's transaction).
 *
 * @param outcome - The store's refusal.
 * @param requested - The payTo as requested; `address`, as stored.
 * @param invoiceDetails - More `details` of `invoice_taken` (between `field` and `refId`).
 * @returns The error.
 * @example
 * ```ts
 * if (outcome.kind !== 'created') throw refCreationRefused(outcome, { requested: input.payTo, address: payTo.address });
 * ```
 */
export function refCreationRefused(
  outcome: Exclude<CreateRefOutcome, { kind: 'created' }>,
  payTo: { readonly requested: string; readonly address: string },
  invoiceDetails: Readonly<Record<string, unknown>> = {},
): GatewayError {
  switch (outcome.kind) {
    case 'payto_not_found':
      return payToNotFound(payTo.requested);
    case 'payto_retired':
      return payToRetired(payTo.address);
    case 'invoice_taken':
      return new GatewayError('conflict', 'An active ref of this merchant already uses this invoiceId.', {
        details: { field: 'invoiceId', ...invoiceDetails, refId: outcome.refId },
      });
  }
}
