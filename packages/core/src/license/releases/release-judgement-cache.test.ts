import { describe, expect, it } from 'vitest';
import { applyReleaseChangeNotice, createReleaseChanges } from './release-changes';
import type { ReleaseJudgement } from './release-gate';
import { ReleaseJudgementCache } from './release-judgement-cache';

const productA = 'a'.repeat(32);
const productB = 'b'.repeat(32);
const unknown: ReleaseJudgement = { kind: 'unknown', gated: true };

function filled(ttlMs = 1000) {
  const cache = new ReleaseJudgementCache({ ttlMs, maxProducts: 10, maxPerProduct: 10 });
  for (const product of [productA, productB]) {
    const ticket = cache.ticket();
    cache.storeJudgement(product, 'key', unknown, ticket, 0);
    cache.storeFloor(product, 3, ticket, 0);
  }
  return cache;
}

describe('ReleaseJudgementCache', () => {
  it('serves an answer until its TTL, not at it', () => {
    const cache = filled();
    expect(cache.judgement(productA, 'key', 999)).toEqual(unknown);
    expect(cache.floor(productA, 999)).toBe(3);
    expect(cache.judgement(productA, 'key', 1000)).toBeUndefined();
    expect(cache.floor(productA, 1000)).toBeUndefined();
  });

  it('forgets one product, or every product when none is named', () => {
    const cache = filled();
    cache.invalidate(productA);
    expect(cache.judgement(productA, 'key', 0)).toBeUndefined();
    expect(cache.floor(productB, 0)).toBe(3);
    cache.invalidate();
    expect(cache.judgement(productB, 'key', 0)).toBeUndefined();
    expect(cache.floor(productB, 0)).toBeUndefined();
  });

  it('does not store a read that began before an invalidation (it may carry the old state)', () => {
    const cache = new ReleaseJudgementCache({ ttlMs: 1000, maxProducts: 10, maxPerProduct: 10 });
    const ticket = cache.ticket();
    cache.invalidate(productB);
    cache.storeJudgement(productA, 'key', unknown, ticket, 0);
    cache.storeFloor(productA, 1, ticket, 0);
    expect(cache.judgement(productA, 'key', 0)).toBeUndefined();
    expect(cache.floor(productA, 0)).toBeUndefined();
  });

  it('stores nothing with a TTL of 0, and stays within its bounds', () => {
    expect(filled(0).floor(productA, 0)).toBeUndefined();
    const cache = new ReleaseJudgementCache({ ttlMs: 1000, maxProducts: 2, maxPerProduct: 2 });
    const products = ['1', '2', '3'].map((digit) => digit.repeat(32));
    for (const product of products) cache.storeFloor(product, 1, cache.ticket(), 0);
    expect(products.map((product) => cache.floor(product, 0))).toEqual([undefined, 1, 1]);
    for (const key of ['x', 'y', 'z']) cache.storeJudgement(productA, key, unknown, cache.ticket(), 0);
    expect(['x', 'y', 'z'].map((key) => cache.judgement(productA, key, 0))).toEqual([undefined, undefined, unknown]);
  });
});

describe('applyReleaseChangeNotice', () => {
  it('publishes the product of a notice, and "every product" for anything else', () => {
    const changes = createReleaseChanges();
    const heard: (string | undefined)[] = [];
    const stop = changes.subscribe((productId) => heard.push(productId));
    applyReleaseChangeNotice(changes, productA);
    applyReleaseChangeNotice(changes, 'reconnected');
    applyReleaseChangeNotice(changes, productA.toUpperCase());
    applyReleaseChangeNotice(changes, '');
    stop();
    applyReleaseChangeNotice(changes, productB);
    expect(heard).toEqual([productA, undefined, undefined, undefined]);
  });
});
