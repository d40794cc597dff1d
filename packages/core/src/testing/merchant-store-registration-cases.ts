import { raceCase } from './race-case';
import { expect, it } from 'vitest';
import type { MerchantStore } from '../gateway/store/merchant-store';
import {
  at,
  challengeFor,
  enrollMerchant,
  enrollRequest,
  freshAddress,
  hexId,
  type MerchantStoreConformanceFixture,
} from './gateway-stores-fixture';

async function issued(merchants: MerchantStore, payTo = freshAddress(), overrides: Parameters<typeof challengeFor>[1] = {}) {
  const challenge = challengeFor(payTo, overrides);
  await merchants.insertChallenge(challenge);
  return challenge;
}

/** Registers the challenge and registration cases of the MerchantStore suite. */
export function defineRegistrationCases(fixture: () => MerchantStoreConformanceFixture): void {
  it('stores challenges as issued and finds them by id', async () => {
    const { merchants } = fixture();
    const challenge = await issued(merchants, freshAddress(), { webhookSha256: 'ab'.repeat(32) });
    expect(await merchants.getChallenge(challenge.id)).toEqual(challenge);
    expect(await merchants.getChallenge(hexId())).toBeUndefined();
  });

  it('enrolls a new payTo as a new merchant with current API and notify keys', async () => {
    const { merchants } = fixture();
    const challenge = await issued(merchants);
    const request = enrollRequest(challenge, { label: 'Café ☕', webhookUrl: 'https://hooks.example.com/x' });
    const outcome = await merchants.register(request);
    expect(outcome).toEqual({ kind: 'created', merchantId: request.mode.merchantId });
    expect((await merchants.getChallenge(challenge.id))?.consumedAt).toEqual(request.now);
    const merchant = await merchants.getMerchant(request.mode.merchantId);
    expect(merchant).toMatchObject({ id: request.mode.merchantId, label: 'Café ☕', webhookUrl: 'https://hooks.example.com/x', createdAt: request.now });
    expect(merchant?.payTos).toEqual([
      { address: challenge.payTo, merchantId: request.mode.merchantId, status: 'active', proof: 'eoa', proofNetwork: 'base', registeredAt: request.now, retiredAt: null },
    ]);
    expect(merchant?.credentials.map(({ id, kind, status }) => ({ id, kind, status }))).toEqual([
      { id: request.apiKeyId, kind: 'api', status: 'current' },
      { id: request.notifyKeyId, kind: 'notify', status: 'current' },
    ]);
    expect(await merchants.findApiKey(request.apiKeyHash)).toEqual({ merchantId: request.mode.merchantId, credentialId: request.apiKeyId, status: 'current' });
    expect(await merchants.findApiKey(hexId(32))).toBeUndefined();
  });

  it('consumes a challenge once: a second registration is refused', async () => {
    const { merchants } = fixture();
    const challenge = await issued(merchants);
    expect((await merchants.register(enrollRequest(challenge))).kind).toBe('created');
    expect(await merchants.register(enrollRequest(challenge))).toEqual({ kind: 'challenge_unavailable', reason: 'consumed' });
  });

  it('never consumes an expired, unknown or mismatched challenge', async () => {
    const { merchants } = fixture();
    const challenge = await issued(merchants);
    expect(await merchants.register(enrollRequest(challenge, { now: at(300_000) }))).toEqual({ kind: 'challenge_unavailable', reason: 'expired' });
    expect(await merchants.register({ ...enrollRequest(challenge), payTo: freshAddress() })).toEqual({ kind: 'challenge_unavailable', reason: 'mismatch' });
    expect(await merchants.register({ ...enrollRequest(challenge), network: 'base-sepolia' })).toEqual({ kind: 'challenge_unavailable', reason: 'mismatch' });
    expect(await merchants.register(enrollRequest({ ...challenge, id: hexId() }))).toEqual({ kind: 'challenge_unavailable', reason: 'unknown' });
    expect((await merchants.getChallenge(challenge.id))?.consumedAt).toBeNull();
    expect(await merchants.getPayTo(challenge.payTo)).toBeUndefined();
    // Still usable one millisecond before it expires.
    expect((await merchants.register(enrollRequest(challenge, { now: at(299_999) }))).kind).toBe('created');
  });

  raceCase('lets exactly one of 20 parallel registrations consume one challenge', fixture, async () => {
    const { merchants } = fixture();
    const challenge = await issued(merchants);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => merchants.register(enrollRequest(challenge))));
    expect(outcomes.filter((outcome) => outcome.kind === 'created')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'challenge_unavailable')).toHaveLength(19);
  });

  it('recovers the merchant when its payTo enrolls again: API keys revoked, notify key rolled over', async () => {
    const { merchants } = fixture();
    const first = await enrollMerchant(merchants);
    await merchants.rotateCredential({ merchantId: first.merchantId, kind: 'api', credential: { id: hexId(8), secretHash: hexId(32) }, now: at(2_000) });
    const again = enrollRequest(await issued(merchants, first.payTo), { label: 'Renamed', now: at(5_000) });
    const outcome = await merchants.register(again);
    expect(outcome.kind).toBe('recovered');
    if (outcome.kind !== 'recovered') return;
    expect(outcome.merchantId).toBe(first.merchantId);
    expect(outcome.revokedApiKeyIds).toHaveLength(2);
    expect(outcome.revokedApiKeyIds).toContain(first.apiKeyId);
    expect(await merchants.findApiKey(first.apiKeyHash)).toBeUndefined();
    expect(await merchants.findApiKey(again.apiKeyHash)).toMatchObject({ merchantId: first.merchantId, status: 'current' });
    const merchant = await merchants.getMerchant(first.merchantId);
    expect(merchant).toMatchObject({ label: 'Renamed', webhookUrl: null });
    expect(merchant?.credentials.map(({ id, kind, status }) => ({ id, kind, status }))).toEqual([
      { id: again.apiKeyId, kind: 'api', status: 'current' },
      { id: first.notifyKeyId, kind: 'notify', status: 'previous' },
      { id: again.notifyKeyId, kind: 'notify', status: 'current' },
    ]);
    // A second recovery revokes the notify key that was already previous.
    const third = enrollRequest(await issued(merchants, first.payTo), { now: at(6_000) });
    expect((await merchants.register(third)).kind).toBe('recovered');
    const notify = (await merchants.getMerchant(first.merchantId))?.credentials.filter((credential) => credential.kind === 'notify');
    expect(notify?.map(({ id, status }) => ({ id, status }))).toEqual([
      { id: again.notifyKeyId, status: 'previous' },
      { id: third.notifyKeyId, status: 'current' },
    ]);
  });

  raceCase('serialises concurrent first registrations of one payTo: one merchant, the others recover it', fixture, async () => {
    const { merchants } = fixture();
    const payTo = freshAddress();
    const requests = await Promise.all(Array.from({ length: 8 }, async () => enrollRequest(await issued(merchants, payTo))));
    const outcomes = await Promise.all(requests.map((request) => merchants.register(request)));
    const created = outcomes.filter((outcome) => outcome.kind === 'created');
    expect(created).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'recovered')).toHaveLength(7);
    const merchantIds = new Set(outcomes.map((outcome) => ('merchantId' in outcome ? outcome.merchantId : undefined)));
    expect(merchantIds).toEqual(new Set([created[0]?.kind === 'created' ? created[0].merchantId : 'none']));
    const live = (await merchants.getMerchant([...merchantIds][0] as string))?.credentials ?? [];
    expect(live.filter((credential) => credential.kind === 'api').map((credential) => credential.status)).toEqual(['current']);
  });

  it('attaches a new payTo to an existing merchant and never takes another merchant’s', async () => {
    const { merchants } = fixture();
    const owner = await enrollMerchant(merchants);
    const other = await enrollMerchant(merchants);
    const second = await issued(merchants);
    const attach = { challengeId: second.id, now: at(2_000), payTo: second.payTo, network: 'base', proof: 'erc1271' as const };
    expect(await merchants.register({ ...attach, mode: { kind: 'attach', merchantId: owner.merchantId } })).toEqual({ kind: 'attached', merchantId: owner.merchantId });
    expect((await merchants.getMerchant(owner.merchantId))?.payTos.map((payTo) => [payTo.address, payTo.proof])).toEqual([
      [owner.payTo, 'eoa'],
      [second.payTo, 'erc1271'],
    ]);
    const taken = await issued(merchants, other.payTo);
    expect(await merchants.register({ ...attach, challengeId: taken.id, payTo: other.payTo, mode: { kind: 'attach', merchantId: owner.merchantId } })).toEqual({
      kind: 'payto_taken',
    });
    expect((await merchants.getPayTo(other.payTo))?.merchantId).toBe(other.merchantId);
    const own = await issued(merchants, owner.payTo);
    expect(await merchants.register({ ...attach, challengeId: own.id, payTo: owner.payTo, mode: { kind: 'attach', merchantId: owner.merchantId } })).toEqual({
      kind: 'already_attached',
      merchantId: owner.merchantId,
    });
  });

  it('never registers a retired payTo again', async () => {
    const { merchants } = fixture();
    const merchant = await enrollMerchant(merchants);
    await merchants.retirePayTo({ merchantId: merchant.merchantId, address: merchant.payTo, now: at(2_000) });
    expect(await merchants.register(enrollRequest(await issued(merchants, merchant.payTo)))).toEqual({ kind: 'payto_retired' });
    const attach = await issued(merchants, merchant.payTo);
    expect(
      await merchants.register({ challengeId: attach.id, now: at(1_000), payTo: merchant.payTo, network: 'base', proof: 'eoa', mode: { kind: 'attach', merchantId: merchant.merchantId } }),
    ).toEqual({ kind: 'payto_retired' });
    expect(await merchants.findApiKey(merchant.apiKeyHash)).toMatchObject({ status: 'current' });
  });

  it('deletes only challenges that expired before the cut-off', async () => {
    const { merchants } = fixture();
    const old = await issued(merchants, freshAddress(), { expiresAt: at(-1) });
    const fresh = await issued(merchants);
    expect(await merchants.deleteExpiredChallenges(at(0))).toBe(1);
    expect(await merchants.getChallenge(old.id)).toBeUndefined();
    expect(await merchants.getChallenge(fresh.id)).toBeDefined();
  });
}
