import { describe, expect, it } from 'vitest';
import { TrustChainError, licenseClockSkewSeconds, pickSigningEpoch, type SigningEpoch } from '@tollgate/core/license';
import { vectorEpochs, vectorNow, vectorProductId } from '../../test/vectors/license-fixtures';

const signing = (fixture: (typeof vectorEpochs)[keyof typeof vectorEpochs]): SigningEpoch => ({ epoch: fixture, signer: fixture.signer });
const { global: globalEpoch, acme, successor: next, expired: old } = vectorEpochs;
const all = [globalEpoch, acme, next, old].map(signing);

describe('pickSigningEpoch', () => {
  it('prefers the epoch scoped to the product, and takes a global epoch otherwise', () => {
    expect(pickSigningEpoch(all, { productId: vectorProductId, now: vectorNow }).epoch.epochIdHex).toBe(vectorEpochs.acme.epochIdHex);
    expect(pickSigningEpoch(all, { productId: 'other-app', now: vectorNow }).epoch.epochIdHex).toBe(vectorEpochs.global.epochIdHex);
  });

  it('signs global kinds only with global epochs', () => {
    expect(pickSigningEpoch(all, { now: vectorNow }).epoch.productScope).toBeUndefined();
    // Equal windows: the smaller epoch id wins, so every instance picks the same one.
    const twins = [signing(vectorEpochs.global), signing(vectorEpochs.unlisted)];
    const smaller = [vectorEpochs.global.epochIdHex, vectorEpochs.unlisted.epochIdHex].sort()[0];
    expect(pickSigningEpoch(twins, { now: vectorNow }).epoch.epochIdHex).toBe(smaller);
    expect(pickSigningEpoch([...twins].reverse(), { now: vectorNow }).epoch.epochIdHex).toBe(smaller);
    expect(() => pickSigningEpoch([signing(vectorEpochs.acme)], { now: vectorNow })).toThrow(TrustChainError);
  });

  it('switches to the newest epoch once its window has been open for the skew margin, and never uses an expired one', () => {
    const { successor, global, expired } = vectorEpochs;
    expect(pickSigningEpoch(all, { now: successor.notBefore - 1 }).epoch.epochIdHex).toBe(global.epochIdHex);
    // Clients whose clocks run behind would not accept the successor yet: the settled epoch keeps signing.
    expect(pickSigningEpoch(all, { now: successor.notBefore }).epoch.epochIdHex).toBe(global.epochIdHex);
    expect(pickSigningEpoch(all, { now: successor.notBefore + licenseClockSkewSeconds - 1 }).epoch.epochIdHex).toBe(global.epochIdHex);
    expect(pickSigningEpoch(all, { now: successor.notBefore + licenseClockSkewSeconds }).epoch.epochIdHex).toBe(successor.epochIdHex);
    // A fresh epoch still signs when no settled one is valid.
    expect(pickSigningEpoch([signing(successor), signing(expired)], { now: successor.notBefore }).epoch.epochIdHex).toBe(successor.epochIdHex);
    const error = (() => {
      try {
        pickSigningEpoch([signing(expired)], { now: vectorNow });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toMatchObject({ code: 'no_signing_epoch' });
  });
});
