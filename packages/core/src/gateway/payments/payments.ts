import type { Address } from 'viem';
import { createNegotiation, type Negotiation } from './negotiation';
import { createPaymentContexts, type PaymentContexts } from './payment-context';
import { resolvePaymentSettings, type PaymentDeps, type PaymentSettings } from './payment-deps';
import { createReceiptIssuer, type ReceiptIssuer } from './receipt-issuer';
import { createSettlementRecoveryService, type SettlementRecoveryService } from './recover-settlement';
import { createSettlementRecovery, type SettlementRecovery } from './recovery';
import { createSettlement, type Settlement } from './settlement';

/** The gateway's payment services, wired over the ref and payment stores and one signing key. */
export interface Payments {
  readonly contexts: PaymentContexts;
  readonly negotiation: Negotiation;
  readonly settlement: Settlement;
  readonly recovery: SettlementRecovery;
  /** `/recover-settlement`: the answer of a settlement from records and chain evidence, without a facilitator. */
  readonly recoverSettlement: SettlementRecoveryService;
  readonly issuer: ReceiptIssuer;
  readonly settings: PaymentSettings;
  /** The address of the key that signs offers and receipts: merchants pin it. */
  readonly signerAddress: Address;
}

/**
 * Wires negotiation, settlement, receipts and recovery. Serve them with `receiveRoutes` and
 * `recoverSettlementRoutes`, run
 * `recovery.runJob` on the `gateway.settlement-recovery` queue, and call `recovery.sweepAbandoned` and
 * `recovery.sweepStranded` periodically (`createGateway` runs all of it in `workers`).
 *
 * @param deps - Ref and payment stores, networks, public URL, clock, signing key, facilitator, chain clients, settings.
 * @returns The services.
 * @throws RangeError when a setting is invalid.
 *
 * @example
 * ```ts
 * import { createHttpFacilitator, createSqlGatewayStores } from '@tollgate/core';
 * import { createPayments } from '@tollgate/core/gateway';
 * import { privateKeyToAccount } from 'viem/accounts';
 * const payments = createPayments({
 *   stores: createSqlGatewayStores(sql), keys, networks, publicUrl: 'https://pay.example.com', clock: systemClock,
 *   signer: privateKeyToAccount(signingKey), facilitator: createHttpFacilitator({ url: 'https://x402.org/facilitator' }),
 *   chain: (network) => rpc.forNetwork(network.name),
 * });
 * ```
 */
export function createPayments(deps: PaymentDeps): Payments {
  const settings = resolvePaymentSettings(deps.settings);
  const contexts = createPaymentContexts(deps, settings);
  const issuer = createReceiptIssuer(deps);
  const recovery = createSettlementRecovery({ ...deps, issuer }, settings);
  // Without the facilitator: recovery can never call settle.
  const { facilitator: _facilitator, ...withoutFacilitator } = deps;
  return {
    contexts,
    negotiation: createNegotiation({ ...deps, contexts }, settings),
    settlement: createSettlement({ ...deps, contexts, issuer, recovery }, settings),
    recovery,
    recoverSettlement: createSettlementRecoveryService({ ...withoutFacilitator, contexts, issuer, recovery }, settings),
    issuer,
    settings,
    signerAddress: deps.signer.address,
  };
}
