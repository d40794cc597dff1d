import { hexEncode } from '../crypto/hex';
import type { MerchantStore, RegistrationOutcome, RegistrationRequest } from '../gateway/store/merchant-store';
import type { PaymentStore } from '../gateway/store/payment-store';
import type { ChallengeRecord, NewRefRecord } from '../gateway/store/records';
import type { RefStore } from '../gateway/store/ref-store';
import type { JobQueue } from '../storage/jobs/job-queue';
import type { SqlClient } from '../storage/sql-client';
import type { ConformanceFixture } from './conformance';
import type { RaceFixture } from './race-case';

/** What every gateway store suite's fixture may say about where the stores run. */
export type GatewayStoresFixtureEngine = ConformanceFixture & RaceFixture;

/** What the MerchantStore suite opens: the store under test, over an empty database. */
export interface MerchantStoreConformanceFixture extends GatewayStoresFixtureEngine {
  readonly merchants: MerchantStore;
}

/** What the RefStore suite opens: the ref store under test and the merchant store that registers its payTos, over one empty database. */
export interface RefStoreConformanceFixture extends MerchantStoreConformanceFixture {
  readonly refs: RefStore;
}

/** What the PaymentStore suite opens: the payment store under test, with the ref and merchant stores of its database. */
export interface PaymentStoreConformanceFixture extends RefStoreConformanceFixture {
  readonly payments: PaymentStore;
  /**
   * The job queue the store enqueues payment jobs into (recovery, notifications), read by the payment
   * cases. For SQL stores it may be left out when `sql` is given: `createSqlJobQueue(sql)` is used.
   */
  readonly jobs?: JobQueue;
  /** The store's database, when it has one (`openTestDatabase(...)` spread into the fixture provides it). */
  readonly sql?: SqlClient;
}


/** The suite's fixed "now": 2026-03-01T12:00:00Z. */
export const gatewayConformanceEpoch = Date.UTC(2026, 2, 1, 12, 0, 0);

let counter = 0;

/** A fresh random lowercase hex id of `bytes` bytes. */
export function hexId(bytes = 16): string {
  return hexEncode(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** A fresh checksum-free but valid-looking EVM address (all lowercase hex is always valid). */
export function freshAddress(): string {
  counter += 1;
  return `0x${hexId(18)}${counter.toString(16).padStart(4, '0')}`;
}

/** Milliseconds after the suite epoch as a Date. */
export function at(offsetMs = 0): Date {
  return new Date(gatewayConformanceEpoch + offsetMs);
}

/** A challenge issued at the epoch, valid for 5 minutes. */
export function challengeFor(payTo: string, overrides: Partial<ChallengeRecord> = {}): ChallengeRecord {
  return {
    id: hexId(),
    origin: 'https://gateway.example.com',
    action: 'merchant.register',
    payTo,
    network: 'base',
    webhookSha256: null,
    nonce: hexId(),
    issuedAt: at(0),
    expiresAt: at(300_000),
    consumedAt: null,
    ...overrides,
  };
}

/** An `enroll` registration of `challenge` with fresh credentials (API key hash = its id, repeated). */
export function enrollRequest(
  challenge: ChallengeRecord,
  overrides: { now?: Date; label?: string; webhookUrl?: string | null; merchantId?: string } = {},
): RegistrationRequest & { apiKeyHash: string; apiKeyId: string; notifyKeyId: string } {
  const apiKeyId = hexId(8);
  const notifyKeyId = hexId(8);
  const apiKeyHash = hexId(32);
  return {
    challengeId: challenge.id,
    now: overrides.now ?? at(1_000),
    payTo: challenge.payTo,
    network: challenge.network,
    proof: 'eoa',
    mode: {
      kind: 'enroll',
      merchantId: overrides.merchantId ?? hexId(),
      label: overrides.label ?? 'Shop',
      webhookUrl: overrides.webhookUrl === undefined ? null : overrides.webhookUrl,
      apiKey: { id: apiKeyId, secretHash: apiKeyHash },
      notifyKey: { id: notifyKeyId },
    },
    apiKeyHash,
    apiKeyId,
    notifyKeyId,
  };
}

/** A registered merchant created through the store, with the hash of its API key. */
export interface EnrolledMerchant {
  readonly merchantId: string;
  readonly payTo: string;
  readonly apiKeyHash: string;
  readonly apiKeyId: string;
  readonly notifyKeyId: string;
}

/**
 * Issues a challenge for a fresh (or given) payTo and enrolls it; fails the test unless a merchant is created.
 *
 * @param merchants - The merchant store.
 * @param payTo - The payTo to register (a fresh address by default).
 * @returns The merchant, with the hash and ids of its credentials.
 * @example
 * ```ts
 * import { enrollMerchant } from '@tollgate/core/testing';
 * const merchant = await enrollMerchant(createSqlMerchantStore(sql));
 * ```
 */
export async function enrollMerchant(merchants: MerchantStore, payTo: string = freshAddress()): Promise<EnrolledMerchant> {
  const challenge = challengeFor(payTo);
  await merchants.insertChallenge(challenge);
  const request = enrollRequest(challenge);
  const outcome: RegistrationOutcome = await merchants.register(request);
  if (outcome.kind !== 'created') throw new Error(`expected a new merchant, got ${outcome.kind}`);
  return { merchantId: outcome.merchantId, payTo, apiKeyHash: request.apiKeyHash, apiKeyId: request.apiKeyId, notifyKeyId: request.notifyKeyId };
}

/** A payment ref for `merchant`, created at the epoch unless `overrides` say otherwise. */
export function refFor(merchant: { merchantId: string; payTo: string }, overrides: Partial<NewRefRecord> = {}): NewRefRecord {
  const id = overrides.id ?? hexId();
  const createdAt = overrides.createdAt ?? at(0);
  return {
    id,
    kind: 'payment',
    refundOf: null,
    refundFrom: null,
    merchantId: merchant.merchantId,
    payTo: merchant.payTo,
    network: 'base',
    asset: 'USDC',
    amount: '10000',
    invoiceId: null,
    label: null,
    notifyUrl: null,
    snapshotJson: JSON.stringify({ v: 2, scheme: 'exact', refId: id, note: 'é ✓ "quoted"' }),
    createdAt,
    expiresAt: new Date(createdAt.getTime() + 86_400_000),
    ...overrides,
  };
}
