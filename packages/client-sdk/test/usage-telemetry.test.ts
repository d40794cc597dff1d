// The client's usage window: duration buckets, caps, the allow-list, and a block that always fits 512 bytes.
import { describe, expect, it } from 'vitest';
import { encodeCanonical, telemetryBlockSpec } from '@tollgate/core';
import { emptyUsage, telemetryBlockOf, withFeatureHit, withSession } from '../src/life-cycle/usage-telemetry';

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
