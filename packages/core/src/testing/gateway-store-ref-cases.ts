import { expect, it } from 'vitest';
import { at, enrollMerchant, freshAddress, hexId, refFor, type GatewayStoreConformanceFixture } from './gateway-store-fixture';

/** Registers the ref cases of the GatewayStore suite. */
export function defineRefCases(fixture: () => GatewayStoreConformanceFixture): void {
  it('creates a ref and returns it, snapshot text byte for byte, on every read', async () => {
    const { store } = fixture();
    const merchant = await enrollMerchant(store);
    const ref = refFor(merchant, { invoiceId: 'INV-1', label: 'Ünïcode ✓', notifyUrl: 'https://hooks.example.com/n', amount: '1'.repeat(78) });
    const outcome = await store.createRef(ref);
    const expected = { ...ref, status: 'active', revokedAt: null };
    expect(outcome).toEqual({ kind: 'created', ref: expected });
    expect(await store.getRef(ref.id)).toEqual(expected);
    expect((await store.getRef(ref.id))?.snapshotJson).toBe(ref.snapshotJson);
    expect(await store.getRef(hexId())).toBeUndefined();
  });

  it('creates refs only on an active payTo the merchant owns', async () => {
    const { store } = fixture();
    const owner = await enrollMerchant(store);
    const other = await enrollMerchant(store);
    expect(await store.createRef(refFor({ merchantId: other.merchantId, payTo: owner.payTo }))).toEqual({ kind: 'payto_not_found' });
    expect(await store.createRef(refFor({ merchantId: owner.merchantId, payTo: freshAddress() }))).toEqual({ kind: 'payto_not_found' });
    await store.retirePayTo({ merchantId: owner.merchantId, address: owner.payTo, now: at(1_000) });
    expect(await store.createRef(refFor(owner))).toEqual({ kind: 'payto_retired' });
    expect(await store.createRef(refFor({ merchantId: other.merchantId, payTo: owner.payTo }))).toEqual({ kind: 'payto_not_found' });
  });

  it('keeps an invoice id unique per merchant among active refs', async () => {
    const { store } = fixture();
    const merchant = await enrollMerchant(store);
    const other = await enrollMerchant(store);
    const first = refFor(merchant, { invoiceId: 'INV-7' });
    await store.createRef(first);
    expect(await store.createRef(refFor(merchant, { invoiceId: 'INV-7' }))).toEqual({ kind: 'invoice_taken', refId: first.id });
    expect((await store.createRef(refFor(other, { invoiceId: 'INV-7' }))).kind).toBe('created');
    expect((await store.createRef(refFor(merchant, { invoiceId: 'inv-7' }))).kind).toBe('created');
    await store.revokeRef({ merchantId: merchant.merchantId, refId: first.id, now: at(1_000) });
    expect((await store.createRef(refFor(merchant, { invoiceId: 'INV-7' }))).kind).toBe('created');
  });

  it('lets exactly one of 10 parallel creations take an invoice id; the others learn its ref id', async () => {
    const { store } = fixture();
    const merchant = await enrollMerchant(store);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => store.createRef(refFor(merchant, { invoiceId: 'RACE' }))));
    const created = outcomes.filter((outcome) => outcome.kind === 'created');
    expect(created).toHaveLength(1);
    const winner = created[0]?.kind === 'created' ? created[0].ref.id : undefined;
    expect(outcomes.filter((outcome) => outcome.kind === 'invoice_taken' && outcome.refId === winner)).toHaveLength(9);
  });

  it('lists one merchant’s refs for one payTo, newest first by (createdAt, id), in pages', async () => {
    const { store } = fixture();
    const merchant = await enrollMerchant(store);
    const other = await enrollMerchant(store);
    const times = [5, 1, 3, 3, 3, 2, 4];
    const refs = times.map((second) => refFor(merchant, { createdAt: at(second * 1_000) }));
    for (const ref of refs) await store.createRef(ref);
    await store.createRef(refFor(other));
    const expected = [...refs].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1)).map((ref) => ref.id);
    const all = await store.listRefs({ merchantId: merchant.merchantId, payTo: merchant.payTo, limit: 100 });
    expect(all.map((ref) => ref.id)).toEqual(expected);
    const pages: string[] = [];
    let before: { createdAt: Date; refId: string } | undefined;
    for (;;) {
      const page = await store.listRefs({ merchantId: merchant.merchantId, payTo: merchant.payTo, limit: 2, ...(before ? { before } : {}) });
      pages.push(...page.map((ref) => ref.id));
      const last = page[page.length - 1];
      if (page.length < 2 || last === undefined) break;
      before = { createdAt: last.createdAt, refId: last.id };
    }
    expect(pages).toEqual(expected);
    expect(await store.listRefs({ merchantId: other.merchantId, payTo: merchant.payTo, limit: 100 })).toEqual([]);
  });

  it('revokes a ref for its owner only, idempotently keeping the first time', async () => {
    const { store } = fixture();
    const owner = await enrollMerchant(store);
    const other = await enrollMerchant(store);
    const ref = refFor(owner);
    await store.createRef(ref);
    expect(await store.revokeRef({ merchantId: other.merchantId, refId: ref.id, now: at(1_000) })).toBeUndefined();
    expect((await store.getRef(ref.id))?.status).toBe('active');
    const revoked = await store.revokeRef({ merchantId: owner.merchantId, refId: ref.id, now: at(2_000) });
    expect(revoked).toEqual({ ...ref, status: 'revoked', revokedAt: at(2_000) });
    expect(await store.revokeRef({ merchantId: owner.merchantId, refId: ref.id, now: at(5_000) })).toEqual(revoked);
    expect(await store.revokeRef({ merchantId: owner.merchantId, refId: hexId(), now: at(5_000) })).toBeUndefined();
  });
}
