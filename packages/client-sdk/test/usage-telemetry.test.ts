// The client's usage window: duration buckets, caps, the allow-list, and a block that always fits 512 bytes.
import { describe, expect, it } from 'vitest';
import { encodeCanonical } from '@tollgate/core/cbor';
import { telemetryBlockSpec } from '@tollgate/core/license';
import { emptyUsage, mayCountUsage, mergeUsage, outgoingUsage, telemetryBlockOf, usageAfterTicket, withFeatureHit, withSession, withUsage, type UsageWindow } from '../src/life-cycle/usage-telemetry';

const day = 86_400;

describe('the usage window', () => {
  it('buckets durations (<5 min, <30 min, <2 h, longer) and counts distinct active days', () => {
    let usage = emptyUsage(0);
    for (const [minutes, at] of [[4.99, 10], [5, 20], [29, 30], [119, day + 5], [120, day + 6], [600, 3 * day]] as const) usage = withSession(usage, minutes * 60_000, at);
    expect(usage).toMatchObject({ sessionCount: 6, histogram: [1, 2, 1, 2], activeDays: [0, 1, 3] });
    expect(JSON.stringify(usage)).not.toContain('4.99');
  });

  it('counts allow-listed features only, caps ids, features and hits', () => {
    const allowed = new Set(['a', 'x'.repeat(129), ...Array.from({ length: 70 }, (_, index) => `f${index}`)]);
    let usage = withFeatureHit(emptyUsage(0), 'b', allowed, 0);
    expect(usage.featureHits).toEqual({});
    usage = withFeatureHit(usage, 'x'.repeat(129), allowed, 0);
    expect(usage.featureHits).toEqual({});
    for (let index = 0; index < 70; index += 1) usage = withFeatureHit(usage, `f${index}`, allowed, 0);
    expect(Object.keys(usage.featureHits)).toHaveLength(64);
    for (let hit = 0; hit < 10_005; hit += 1) usage = withFeatureHit(usage, 'f0', allowed, 0);
    expect(usage.featureHits['f0']).toBe(10_000);
  });

  it('builds no block without consent or without data, and always a block that fits 512 bytes', () => {
    const allowed = new Set(Array.from({ length: 64 }, (_, index) => `feature-${'y'.repeat(100)}-${index}`));
    let usage = withSession(emptyUsage(0), 1_000, 0);
    expect(telemetryBlockOf(usage, 0)).toBeUndefined();
    expect(telemetryBlockOf(emptyUsage(0), 1)).toBeUndefined();
    for (const [index, id] of [...allowed].entries()) for (let hit = 0; hit <= index % 5; hit += 1) usage = withFeatureHit(usage, id, allowed, 0);
    const block = telemetryBlockOf(usage, 2)!;
    expect(encodeCanonical(telemetryBlockSpec.toCbor(block)).length).toBeLessThanOrEqual(512);
    expect(block.featureHits.size).toBeGreaterThan(0);
    expect(block.featureHits.size).toBeLessThan(64);
    // The most used features are the ones kept.
    const dropped = Object.entries(usage.featureHits).filter(([id]) => !block.featureHits.has(id)).map(([, hits]) => hits);
    expect(Math.max(...dropped)).toBeLessThanOrEqual(Math.min(...block.featureHits.values()));
    expect(block).toMatchObject({ consentVersion: 2, sessionCount: 1, daysActive: 1 });
  });
});

describe('the window and the tier gate a ticket carries (key 16)', () => {
  const allowed = new Set(['a', 'b']);
  const used = withFeatureHit(withSession(emptyUsage(10 * day), 60_000, 10 * day + 5), 'a', allowed, 10 * day + 6);

  it('counts with consent unless a ticket said the tier forbids telemetry (before any ticket the tier is unknown)', () => {
    expect(mayCountUsage(0, { telemetryWindow: day })).toBe(false);
    expect(mayCountUsage(1, undefined)).toBe(true);
    expect(mayCountUsage(1, { telemetryWindow: day })).toBe(true);
    expect(mayCountUsage(1, {})).toBe(false);
  });

  it('sends a window only under a ticket naming a later server day, with consent, and never a window without a marker', () => {
    expect(outgoingUsage(used, 1, undefined)).toBeUndefined();
    expect(outgoingUsage(used, 1, {})).toBeUndefined();
    expect(outgoingUsage(used, 1, { telemetryWindow: 10 * day })).toBeUndefined();
    expect(outgoingUsage(used, 0, { telemetryWindow: 11 * day })).toBeUndefined();
    expect(outgoingUsage({ ...used, windowStart: 0 }, 1, { telemetryWindow: 11 * day })).toBeUndefined();
    expect(outgoingUsage(emptyUsage(10 * day), 1, { telemetryWindow: 11 * day })).toBeUndefined();
    const outgoing = outgoingUsage(used, 4, { telemetryWindow: 11 * day })!;
    expect(outgoing.sent).toBe(used);
    expect(outgoing.block).toMatchObject({ consentVersion: 4, windowStart: 10 * day, sessionCount: 1, daysActive: 1 });
  });

  it('moves the window under the ticket\'s marker when sent or unmarked, and drops it when the ticket forbids telemetry or consent is gone', () => {
    expect(usageAfterTicket(used, 1, { telemetryWindow: 12 * day }, true)).toMatchObject({ windowStart: 12 * day, sessionCount: 1 });
    expect(usageAfterTicket(used, 1, { telemetryWindow: 12 * day }, false)).toMatchObject({ windowStart: 10 * day });
    expect(usageAfterTicket({ ...used, windowStart: 0 }, 1, { telemetryWindow: 12 * day }, false)).toMatchObject({ windowStart: 12 * day });
    expect(usageAfterTicket({ ...used, windowStart: 20 * day }, 1, { telemetryWindow: 12 * day }, false)).toMatchObject({ windowStart: 12 * day });
    expect(usageAfterTicket(used, 1, {}, false)).toBeUndefined();
    expect(usageAfterTicket(used, 0, { telemetryWindow: 12 * day }, false)).toBeUndefined();
    expect(usageAfterTicket(undefined, 1, { telemetryWindow: 12 * day }, false)).toBeUndefined();
  });

  it('merges a window that could not be sent with what was counted meanwhile, within the caps', () => {
    const later = withFeatureHit(withSession(emptyUsage(10 * day), 3 * 3_600_000, 12 * day), 'b', allowed, 12 * day);
    expect(mergeUsage(used, undefined)).toBe(used);
    expect(mergeUsage(used, later)).toEqual({ windowStart: 10 * day, sessionCount: 2, histogram: [1, 0, 0, 1], featureHits: { a: 1, b: 1 }, activeDays: [10, 12] });
    const full = { ...used, sessionCount: 10_000, histogram: [10_000, 0, 0, 0] as [number, number, number, number], featureHits: Object.fromEntries(Array.from({ length: 64 }, (_, index) => [`f${index}`, 10_000])), activeDays: Array.from({ length: 28 }, (_, index) => index) };
    const merged = mergeUsage(full, { ...later, featureHits: { f0: 5, new: 1 }, activeDays: [100] });
    expect(merged.sessionCount).toBe(10_000);
    expect(merged.histogram[0]).toBe(10_000);
    expect(merged.featureHits.f0).toBe(10_000);
    expect('new' in merged.featureHits).toBe(false);
    expect(merged.activeDays).toHaveLength(28);
    expect(merged.activeDays.at(-1)).toBe(100);
  });

  it('sets or removes the usage field of a record', () => {
    const record: { consentVersion: number; usage?: UsageWindow } = { consentVersion: 1, usage: used };
    expect(withUsage(record, undefined)).toEqual({ consentVersion: 1 });
    expect(withUsage({ consentVersion: 1 } as typeof record, used)).toEqual({ consentVersion: 1, usage: used });
  });
});
