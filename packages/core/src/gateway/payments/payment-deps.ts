import type { Address, PublicClient } from 'viem';
import type { ChainEvidenceClient } from '../../chain/settlement-evidence';
import type { EvmSigner } from '../../x402/evm-signature';
import type { Secp256k1Backend } from '../../x402/secp256k1-backend';
import type { Facilitator } from '../../x402/facilitator/port';
import type { GatewayNetwork } from '../networks';
import type { GatewayServiceDeps } from '../service-deps';
import type { GatewayStores } from '../store/gateway-stores';
import type { OrderStore } from '../store/order-store';

/**
 * The chain reads payments make: settlement evidence, the head block (number and timestamp) every
 * evidence read is pinned to, and the head block number recorded when settle starts. A viem
 * `PublicClient` satisfies it.
 */
export type SettlementChainClient = ChainEvidenceClient & Pick<PublicClient, 'getBlock'>;

/** Tunables of the payment flow; every one has a default ({@link defaultPaymentSettings}). */
export interface PaymentSettings {
  /** `maxTimeoutSeconds` of the requirements: how long the authorization a payer signs stays valid. */
  readonly maxTimeoutSeconds: number;
  /** Minimum validity of a signed offer; offers are signed once per granule and cached. */
  readonly offerValiditySeconds: number;
  /** Offer expiries are rounded up to this many seconds (see `alignedOfferExpiry`). */
  readonly offerGranularitySeconds: number;
  /** How far in the future an authorization's `validAfter` may lie (payer clock skew). */
  readonly clockSkewSeconds: number;
  /** How long an authorization must still be valid when it arrives. */
  readonly minValiditySeconds: number;
  /** Lease of a claim: longer than the facilitator's verify and settle deadlines together. */
  readonly leaseMs: number;
  /** How long a duplicate submission waits for the one in progress before answering `settlement_pending`. */
  readonly waitMs: number;
  /** Interval of the store polls while waiting. */
  readonly pollMs: number;
  /** Most blocks per `eth_getLogs` call of the evidence reader. */
  readonly maxBlockSpan: number;
  /**
   * Most blocks the evidence reader searches for a settlement's logs per attempt: forward from a little
   * below the head block recorded when settle started, or, when none was recorded, back from the head.
   */
  readonly evidenceScanBlocks: number;
  /** Deadline of each chain read of the evidence reader. */
  readonly evidenceTimeoutMs: number;
  /** `Retry-After` of a `settlement_pending` answer. */
  readonly pendingRetryAfterSeconds: number;
  /** Entries of the negotiation cache (per ref and amount). */
  readonly cacheSize: number;
  /**
   * How long a 402 negotiation may reuse a ref's and its payTo's status read by an earlier negotiation on
   * this instance (0 = read on every request). Revoking or retiring through this instance forgets the entry
   * at once (the `ref_revoked` and `payto_retired` gateway events); the settlement claim re-reads both
   * statuses in the same statement, so a payment is never accepted on a stale status.
   */
  readonly statusCacheMs: number;
}

/**
 * Defaults: authorizations valid 300 s (slow wallets and facilitator backlogs fit, and a payment that
 * never lands is known failed five minutes after signing), offers valid at least as long and signed per
 * 60 s granule, 60 s clock skew, 10 s minimum validity, a 2-minute lease (facilitator verify 10 s + settle
 * 60 s + margin), duplicates wait up to 30 s polling every 50 ms, 2 000-block log ranges and at most
 * 20 000 blocks searched per evidence attempt, 10 s chain reads, `Retry-After: 5` while pending, 1 000
 * cached negotiations, statuses reused by negotiations for 1 s.
 *
 * @example
 * ```ts
 * import { defaultPaymentSettings } from '@tollgate/core';
 * const settings = { ...defaultPaymentSettings, maxTimeoutSeconds: 120 };
 * ```
 */
export const defaultPaymentSettings: PaymentSettings = Object.freeze({
  maxTimeoutSeconds: 300,
  offerValiditySeconds: 300,
  offerGranularitySeconds: 60,
  clockSkewSeconds: 60,
  minValiditySeconds: 10,
  leaseMs: 120_000,
  waitMs: 30_000,
  pollMs: 50,
  maxBlockSpan: 2_000,
  evidenceScanBlocks: 20_000,
  evidenceTimeoutMs: 10_000,
  pendingRetryAfterSeconds: 5,
  cacheSize: 1_000,
  statusCacheMs: 1_000,
});

/** Something that happened to a payment, for logs and metrics. Never carries the payer's signature. */
export interface PaymentEvent {
  /**
   * `recovery_renewed`: the payment's recovery job had died (all attempts used) or gone missing, and the
   * sweep enqueued a new one.
   */
  readonly type: 'claimed' | 'released' | 'settled' | 'pending' | 'failed' | 'taken_over' | 'recovery_renewed';
  readonly paymentId: string;
  readonly refId: string;
  readonly txHash?: string;
  /** Why: the facilitator's or the chain's reason, or what made the payment pending. */
  readonly reason?: string;
}

/** What the payment services need besides the gateway's common dependencies. */
export interface PaymentOptions {
  /** The gateway's secp256k1 key: signs offers, receipts and the x402 artifacts. Publish its address. */
  readonly signer: EvmSigner;
  /** The x402 facilitator; without one the gateway negotiates but answers settlements `facilitator_unavailable`. */
  readonly facilitator?: Facilitator;
  /** The chain client of a network, for settlement evidence; `undefined` when none is configured. */
  readonly chain?: (network: GatewayNetwork) => SettlementChainClient | undefined;
  /**
   * Whether a settlement the facilitator reports is checked on chain before its receipt is signed (the
   * transaction must hold this authorization's transfer of the amount to payTo; otherwise the payment
   * stays pending until chain evidence decides). Default `true`; without a chain client for the network
   * the facilitator's word is taken.
   */
  readonly confirmTransfers?: boolean;
  /** The curve arithmetic of the payer-signature recovery (default `nobleSecp256k1`; libsecp256k1 on Node: `loadSecp256k1Backend`). */
  readonly secp256k1?: Secp256k1Backend;
  readonly settings?: Partial<PaymentSettings>;
  /** Told about claims, releases and outcomes (e.g. to log them). Must not throw. */
  readonly onEvent?: (event: PaymentEvent) => void;
  /** Waits `ms` between store polls (default `setTimeout`); tests may speed it up. */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * Order mode (`GATEWAY_ORDER_MODE=on`; default off): refund refs are payable, with
   * `refundOf=sha256:<receiptHash>` of the payment they pay back, and their settlement issues a refund
   * receipt. Off, a `refundOf` and every refund ref are refused with `invalid_request`.
   */
  readonly orderMode?: boolean;
}

/**
 * Everything the payment services use: the common dependencies, the payment options, and the stores —
 * `refs` for the receive route's reads (ref and statuses) and the ref a receipt names, `payments` for the
 * claims and their transitions, and in order mode `orders` for refund intents.
 */
export type PaymentDeps = GatewayServiceDeps &
  PaymentOptions & {
    /** `orders` (order mode): the refund intent of a refund ref, for its checks and its receipt. */
    readonly stores: Pick<GatewayStores, 'refs' | 'payments'> & { readonly orders?: OrderStore };
  };

/**
 * The settings of `deps` with defaults filled in and checked.
 *
 * @param overrides - Partial settings.
 * @returns Complete settings.
 * @throws RangeError when a value is not a positive integer (`statusCacheMs` may be 0: no status cache),
 *   or `maxTimeoutSeconds` is not longer than the minimum validity.
 *
 * @example
 * ```ts
 * import { resolvePaymentSettings } from '@tollgate/core';
 * resolvePaymentSettings({ statusCacheMs: 0 }).maxTimeoutSeconds; // 300
 * ```
 */
export function resolvePaymentSettings(overrides: Partial<PaymentSettings> = {}): PaymentSettings {
  const settings = { ...defaultPaymentSettings, ...overrides };
  for (const [name, value] of Object.entries(settings)) {
    const least = name === 'statusCacheMs' ? 0 : 1;
    if (!Number.isSafeInteger(value) || (value as number) < least) {
      throw new RangeError(`Payment setting ${name} must be ${least === 0 ? 'a non-negative' : 'a positive'} integer, got ${String(value)}.`);
    }
  }
  if (settings.maxTimeoutSeconds <= settings.minValiditySeconds) throw new RangeError('maxTimeoutSeconds must exceed minValiditySeconds.');
  return Object.freeze(settings);
}

/** A promise that resolves after `ms` milliseconds. */
export function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Who a payment is, before it is verified: enough to find an earlier submission of it. */
export interface PaymentIdentity {
  /** The client's payment-identifier id, else `authorizationPaymentId`. */
  readonly paymentId: string;
  readonly chainId: number;
  /** `authorization.from`, checksummed. */
  readonly payer: Address;
  /** The EIP-3009 nonce, lowercase. */
  readonly nonce: string;
  readonly validBefore: string;
  readonly validAfter: string;
  /** `paymentFingerprint` of the payload. */
  readonly fingerprint: string;
}
