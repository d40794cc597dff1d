import { raceCase } from './race-case';
import { expect, it } from 'vitest';
import type { CredentialKind } from '../gateway/store/records';
import { at, enrollMerchant, hexId, type MerchantStoreConformanceFixture } from './gateway-stores-fixture';

function newCredential(kind: CredentialKind) {
  return kind === 'api' ? { id: hexId(8), secretHash: hexId(32) } : { id: hexId(8) };
}

/** Registers the credential and payTo cases of the MerchantStore suite. */
export function defineCredentialCases(fixture: () => MerchantStoreConformanceFixture): void {
  it('rotates an API key: both work until the previous one is revoked, which only touches the previous', async () => {
    const { merchants } = fixture();
    const merchant = await enrollMerchant(merchants);
    const next = { id: hexId(8), secretHash: hexId(32) };
    expect(await merchants.rotateCredential({ merchantId: merchant.merchantId, kind: 'api', credential: next, now: at(2_000) })).toEqual({
      kind: 'rotated',
      previousId: merchant.apiKeyId,
    });
    expect(await merchants.findApiKey(merchant.apiKeyHash)).toEqual({ merchantId: merchant.merchantId, credentialId: merchant.apiKeyId, status: 'previous' });
    expect(await merchants.findApiKey(next.secretHash)).toEqual({ merchantId: merchant.merchantId, credentialId: next.id, status: 'current' });
    expect(await merchants.rotateCredential({ merchantId: merchant.merchantId, kind: 'api', credential: newCredential('api'), now: at(3_000) })).toEqual({
      kind: 'previous_exists',
      previousId: merchant.apiKeyId,
    });
    expect(await merchants.revokePreviousCredential({ merchantId: merchant.merchantId, kind: 'api', now: at(4_000) })).toEqual({ revokedId: merchant.apiKeyId });
    expect(await merchants.findApiKey(merchant.apiKeyHash)).toBeUndefined();
    expect(await merchants.findApiKey(next.secretHash)).toMatchObject({ status: 'current' });
    expect(await merchants.revokePreviousCredential({ merchantId: merchant.merchantId, kind: 'api', now: at(5_000) })).toEqual({ revokedId: null });
    expect(await merchants.findApiKey(next.secretHash)).toMatchObject({ status: 'current' });
    expect((await merchants.rotateCredential({ merchantId: merchant.merchantId, kind: 'api', credential: newCredential('api'), now: at(6_000) })).kind).toBe('rotated');
  });

  it('rotates notify keys independently of API keys', async () => {
    const { merchants } = fixture();
    const merchant = await enrollMerchant(merchants);
    const next = newCredential('notify');
    expect(await merchants.rotateCredential({ merchantId: merchant.merchantId, kind: 'notify', credential: next, now: at(2_000) })).toEqual({
      kind: 'rotated',
      previousId: merchant.notifyKeyId,
    });
    const credentials = (await merchants.getMerchant(merchant.merchantId))?.credentials ?? [];
    expect(credentials.map(({ id, kind, status }) => ({ id, kind, status }))).toEqual([
      { id: merchant.apiKeyId, kind: 'api', status: 'current' },
      { id: merchant.notifyKeyId, kind: 'notify', status: 'previous' },
      { id: next.id, kind: 'notify', status: 'current' },
    ]);
    expect(await merchants.revokePreviousCredential({ merchantId: merchant.merchantId, kind: 'api', now: at(3_000) })).toEqual({ revokedId: null });
    expect(await merchants.revokePreviousCredential({ merchantId: merchant.merchantId, kind: 'notify', now: at(3_000) })).toEqual({
      revokedId: merchant.notifyKeyId,
    });
    expect((await merchants.getMerchant(merchant.merchantId))?.credentials.map((credential) => credential.id)).toEqual([merchant.apiKeyId, next.id]);
  });

  raceCase('lets exactly one of 20 parallel rotations through and keeps one current and one previous', fixture, async () => {
    const { merchants } = fixture();
    const merchant = await enrollMerchant(merchants);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => merchants.rotateCredential({ merchantId: merchant.merchantId, kind: 'api', credential: newCredential('api'), now: at(2_000) })),
    );
    expect(outcomes.filter((outcome) => outcome.kind === 'rotated')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'previous_exists')).toHaveLength(19);
    const api = (await merchants.getMerchant(merchant.merchantId))?.credentials.filter((credential) => credential.kind === 'api');
    expect(api?.map((credential) => credential.status).sort()).toEqual(['current', 'previous']);
  });

  it('reports an unknown merchant on rotation', async () => {
    const { merchants } = fixture();
    expect(await merchants.rotateCredential({ merchantId: hexId(), kind: 'api', credential: newCredential('api'), now: at(0) })).toEqual({ kind: 'merchant_not_found' });
    expect(await merchants.getMerchant(hexId())).toBeUndefined();
  });

  it('retires a payTo for its owner only, idempotently keeping the first time', async () => {
    const { merchants } = fixture();
    const owner = await enrollMerchant(merchants);
    const other = await enrollMerchant(merchants);
    expect(await merchants.retirePayTo({ merchantId: other.merchantId, address: owner.payTo, now: at(2_000) })).toBeUndefined();
    expect((await merchants.getPayTo(owner.payTo))?.status).toBe('active');
    const retired = await merchants.retirePayTo({ merchantId: owner.merchantId, address: owner.payTo, now: at(3_000) });
    expect(retired).toMatchObject({ address: owner.payTo, merchantId: owner.merchantId, status: 'retired', retiredAt: at(3_000) });
    expect(await merchants.retirePayTo({ merchantId: owner.merchantId, address: owner.payTo, now: at(9_000) })).toMatchObject({ retiredAt: at(3_000) });
    expect(await merchants.getPayTo(owner.payTo)).toEqual(retired);
  });
}
