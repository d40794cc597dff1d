import { raceCase } from './race-case';
import { expect, it } from 'vitest';
import { at, enrollMerchant, freshAddress, hexId, refFor, type RefStoreConformanceFixture } from './gateway-stores-fixture';

/** Registers the ref cases of the RefStore suite. */
export function defineRefCases(fixture: () => RefStoreConformanceFixture): void {
  it('creates a ref and returns it, snapshot text byte for byte, on every read', async () => {
    const { merchants, refs } = fixture();
    const merchant = await enrollMerchant(merchants);
    const ref = refFor(merchant, { invoiceId: 'INV-1', label: 'Ünïcode ✓', notifyUrl: 'https://hooks.example.com/n', amount: '1'.repeat(78) });
    const outcome = await refs.createRef(ref);
    const expected = { ...ref, status: 'active', revokedAt: null };
    expect(outcome).toEqual({ kind: 'created', ref: expected });
    expect(await refs.getRef(ref.id)).toEqual(expected);
    expect((await refs.getRef(ref.id))?.snapshotJson).toBe(ref.snapshotJson);
    expect(await refs.getRef(hexId())).toBeUndefined();
  });

  it('creates a payment ref when the refund fields are left out, and refuses to create a refund ref', async () => {
    const { merchants, refs } = fixture();
    const merchant = await enrollMerchant(merchants);
    const { kind: _kind, refundOf: _refundOf, refundFrom: _refundFrom, ...bare } = refFor(merchant);
    const outcome = await refs.createRef(bare);
    expect(outcome).toEqual({ kind: 'created', ref: { ...bare, kind: 'payment', refundOf: null, refundFrom: null, status: 'active', revokedAt: null } });
    const refund = refFor(merchant, { kind: 'refund', refundOf: `sha256:${hexId(32)}`, refundFrom: merchant.payTo, payTo: freshAddress() });
    await expect(refs.createRef(refund)).rejects.toThrow(TypeError);
    expect(await refs.getRef(refund.id)).toBeUndefined();
  });

  it('creates refs only on an active payTo the merchant owns', async () => {
    const { merchants, refs } = fixture();
    const owner = await enrollMerchant(merchants);
    const other = await enrollMerchant(merchants);
    expect(await refs.createRef(refFor({ merchantId: other.merchantId, payTo: owner.payTo }))).toEqual({ kind: 'payto_not_found' });
    expect(await refs.createRef(refFor({ merchantId: owner.merchantId, payTo: freshAddress() }))).toEqual({ kind: 'payto_not_found' });
    await merchants.retirePayTo({ merchantId: owner.merchantId, address: owner.payTo, now: at(1_000) });
    expect(await refs.createRef(refFor(owner))).toEqual({ kind: 'payto_retired' });
    expect(await refs.createRef(refFor({ merchantId: other.merchantId, payTo: owner.payTo }))).toEqual({ kind: 'payto_not_found' });
  });

  it('keeps an invoice id unique per merchant among active refs', async () => {
    const { merchants, refs } = fixture();
    const merchant = await enrollMerchant(merchants);
    const other = await enrollMerchant(merchants);
    const first = refFor(merchant, { invoiceId: 'INV-7' });
    await refs.createRef(first);
    expect(await refs.createRef(refFor(merchant, { invoiceId: 'INV-7' }))).toEqual({ kind: 'invoice_taken', refId: first.id });
    expect((await refs.createRef(refFor(other, { invoiceId: 'INV-7' }))).kind).toBe('created');
    expect((await refs.createRef(refFor(merchant, { invoiceId: 'inv-7' }))).kind).toBe('created');
    await refs.revokeRef({ merchantId: merchant.merchantId, refId: first.id, now: at(1_000) });
    expect((await refs.createRef(refFor(merchant, { invoiceId: 'INV-7' }))).kind).toBe('created');
  });

  raceCase('lets exactly one of 10 parallel creations take an invoice id; the others learn its ref id', fixture, async () => {
    const { merchants, refs } = fixture();
    const merchant = await enrollMerchant(merchants);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => refs.createRef(refFor(merchant, { invoiceId: 'RACE' }))));
    const created = outcomes.filter((outcome) => outcome.kind === 'created');
    expect(created).toHaveLength(1);
    const winner = created[0]?.kind === 'created' ? created[0].ref.id : undefined;
    expect(outcomes.filter((outcome) => outcome.kind === 'invoice_taken' && outcome.refId === winner)).toHaveLength(9);
  });

  it('lists one merchant’s refs for one payTo, newest first by (createdAt, id), in pages', async () => {
    const { merchants, refs } = fixture();
    const merchant = await enrollMerchant(merchants);
    const other = await enrollMerchant(merchants);
    const times = [5, 1, 3, 3, 3, 2, 4];
    const created = times.map((second) => refFor(merchant, { createdAt: at(second * 1_000) }));
    for (const ref of created) await refs.createRef(ref);
    await refs.createRef(refFor(other));
    const expected = [...created].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)).map((ref) => ref.id);
    const all = await refs.listRefs({ merchantId: merchant.merchantId, payTo: merchant.payTo, limit: 100 });
    expect(all.map((ref) => ref.id)).toEqual(expected);
    const pages: string[] = [];
    let before: { createdAt: Date; refId: string } | undefined;
    for (;;) {
      const page = await refs.listRefs({ merchantId: merchant.merchantId, payTo: merchant.payTo, limit: 2, ...(before ? { before } : {}) });
      pages.push(...page.map((ref) => ref.id));
      const last = page[page.length - 1];
      if (page.length < 2 || last === undefined) break;
      before = { createdAt: last.createdAt, refId: last.id };
    }
    expect(pages).toEqual(expected);
    expect(await refs.listRefs({ merchantId: other.merchantId, payTo: merchant.payTo, limit: 100 })).toEqual([]);
  });

  it('revokes a ref for its owner only, idempotently keeping the first time', async () => {
    const { merchants, refs } = fixture();
    const owner = await enrollMerchant(merchants);
    const other = await enrollMerchant(merchants);
    const ref = refFor(owner);
    await refs.createRef(ref);
    expect(await refs.revokeRef({ merchantId: other.merchantId, refId: ref.id, now: at(1_000) })).toBeUndefined();
    expect((await refs.getRef(ref.id))?.status).toBe('active');
    const revoked = await refs.revokeRef({ merchantId: owner.merchantId, refId: ref.id, now: at(2_000) });
    expect(revoked).toEqual({ ...ref, status: 'revoked', revokedAt: at(2_000) });
    expect(await refs.revokeRef({ merchantId: owner.merchantId, refId: ref.id, now: at(5_000) })).toEqual(revoked);
    expect(await refs.revokeRef({ merchantId: owner.merchantId, refId: hexId(), now: at(5_000) })).toBeUndefined();
  });

  it('reads a ref with its payTo status, and the two statuses alone', async () => {
    const { merchants, refs } = fixture();
    const merchant = await enrollMerchant(merchants);
    const ref = refFor(merchant, { notifyUrl: 'https://hooks.example.com/paid' });
    await refs.createRef(ref);
    const target = { merchant, refId: ref.id };
    const read = await refs.getPaymentTarget(target.refId);
    expect(read).toEqual({ ref: await refs.getRef(target.refId), payToStatus: 'active' });
    expect(await refs.getPaymentStatus(target.refId)).toEqual({ refStatus: 'active', payToStatus: 'active' });
    await refs.revokeRef({ merchantId: target.merchant.merchantId, refId: target.refId, now: at(500) });
    await merchants.retirePayTo({ merchantId: target.merchant.merchantId, address: target.merchant.payTo, now: at(1_000) });
    expect((await refs.getPaymentTarget(target.refId))?.payToStatus).toBe('retired');
    expect(await refs.getPaymentStatus(target.refId)).toEqual({ refStatus: 'revoked', payToStatus: 'retired' });
    expect(await refs.getPaymentTarget(hexId())).toBeUndefined();
    expect(await refs.getPaymentStatus(hexId())).toBeUndefined();
  });
}
