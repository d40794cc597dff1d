import { encodeCanonical, maxTelemetryBlockBytes, telemetryBlockSpec, type TelemetryBlock } from '@tollgate/core';

/**
 * Usage counted on the device between two validations, only while the user consents. Durations are
 * bucketed as they end (exact durations never leave the device, nor are they stored), features are
 * counted only when the app allow-listed them, and active days are kept as day numbers of the window.
 */
export interface UsageWindow {
  /** Unix seconds when the window began (sent as `window_start`). */
  readonly windowStart: number;
  readonly sessionCount: number;
  /** Sessions under 5 min, under 30 min, under 2 h, 2 h or more. */
  readonly histogram: readonly [number, number, number, number];
  readonly featureHits: Readonly<Record<string, number>>;
  /** UTC day numbers (unix seconds / 86 400) with at least one session or feature use. */
  readonly activeDays: readonly number[];
}

const bucketLimitsMs = [5 * 60_000, 30 * 60_000, 2 * 3_600_000];
const caps = { sessions: 10_000, features: 64, featureIdChars: 128, hits: 10_000, days: 28 };

/**
 * An empty window starting at `nowSeconds`.
 *
 * @example
 * ```ts
 * let usage = emptyUsage(unixSeconds(clock));
 * ```
 */
export function emptyUsage(nowSeconds: number): UsageWindow {
  return { windowStart: nowSeconds, sessionCount: 0, histogram: [0, 0, 0, 0], featureHits: {}, activeDays: [] };
}

const withDay = (days: readonly number[], nowSeconds: number): number[] => {
  const day = Math.floor(nowSeconds / 86_400);
  return days.includes(day) ? [...days] : [...days, day].slice(-caps.days);
};

/**
 * Counts one finished session: its duration lands in a bucket and is then forgotten.
 *
 * @param usage - The window so far.
 * @param durationMs - How long the session lasted.
 * @param nowSeconds - When it ended.
 * @returns The new window.
 * @example
 * ```ts
 * usage = withSession(usage, Date.now() - startedAt, unixSeconds(clock));
 * ```
 */
export function withSession(usage: UsageWindow, durationMs: number, nowSeconds: number): UsageWindow {
  const histogram = [...usage.histogram] as [number, number, number, number];
  const bucket = bucketLimitsMs.findIndex((limit) => durationMs < limit);
  histogram[bucket === -1 ? 3 : bucket] = Math.min(caps.sessions, histogram[bucket === -1 ? 3 : bucket]! + 1);
  return { ...usage, sessionCount: Math.min(caps.sessions, usage.sessionCount + 1), histogram, activeDays: withDay(usage.activeDays, nowSeconds) };
}

/**
 * Counts a use of an allow-listed feature (others are ignored, as are ids over 128 characters and new ids
 * beyond 64 in one window).
 *
 * @example
 * ```ts
 * usage = withFeatureHit(usage, 'export-pdf', allowed, unixSeconds(clock));
 * ```
 */
export function withFeatureHit(usage: UsageWindow, featureId: string, allowed: ReadonlySet<string>, nowSeconds: number): UsageWindow {
  if (!allowed.has(featureId) || featureId.length === 0 || featureId.length > caps.featureIdChars) return usage;
  const known = featureId in usage.featureHits;
  if (!known && Object.keys(usage.featureHits).length >= caps.features) return usage;
  const hits = Math.min(caps.hits, (usage.featureHits[featureId] ?? 0) + 1);
  return { ...usage, featureHits: { ...usage.featureHits, [featureId]: hits }, activeDays: withDay(usage.activeDays, nowSeconds) };
}

/**
 * The block validate carries for this window, or `undefined` when there is nothing to send or no
 * consent. It always fits the spec's 512 bytes: when the features do not, the least-used are left out.
 *
 * @param usage - The window.
 * @param consentVersion - The accepted privacy-notice version (0: no block at all).
 * @returns The block.
 * @example
 * ```ts
 * const telemetry = telemetryBlockOf(usage, stored.consentVersion);
 * ```
 */
export function telemetryBlockOf(usage: UsageWindow, consentVersion: number): TelemetryBlock | undefined {
  if (consentVersion <= 0 || (usage.sessionCount === 0 && Object.keys(usage.featureHits).length === 0)) return undefined;
  const features = Object.entries(usage.featureHits).sort(([a, hitsA], [b, hitsB]) => hitsB - hitsA || (a < b ? -1 : 1));
  for (let kept = features.length; kept >= 0; kept -= 1) {
    const block: TelemetryBlock = {
      consentVersion,
      windowStart: usage.windowStart,
      sessionCount: usage.sessionCount,
      sessionDurationHistogram: [...usage.histogram],
      featureHits: new Map(features.slice(0, kept)),
      daysActive: usage.activeDays.length,
    };
    if (encodeCanonical(telemetryBlockSpec.toCbor(block)).length <= maxTelemetryBlockBytes) return block;
  }
  return undefined;
}
