import { encodeCanonical } from '@tollgate/core/cbor';
import { maxTelemetryBlockBytes, telemetryBlockSpec, type TelemetryBlock, type ValidationTicket } from '@tollgate/core/license';

/**
 * Usage counted on the device between two validations, only while the user consents. Durations are
 * bucketed as they end (exact durations never leave the device, nor are they stored), features are
 * counted only when the app allow-listed them, and active days are kept as day numbers of the window.
 */
export interface UsageWindow {
  /**
   * The server's window marker (a ticket's `telemetryWindow`, midnight UTC of the server's day) under which
   * counting began, sent as `window_start`; 0 while no ticket has named one yet (just activated).
   */
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
 * An empty window under the server's marker `windowStart` (0: none named yet).
 *
 * @example
 * ```ts
 * let usage = emptyUsage(ticket?.telemetryWindow ?? 0);
 * ```
 */
export function emptyUsage(windowStart: number): UsageWindow {
  return { windowStart, sessionCount: 0, histogram: [0, 0, 0, 0], featureHits: {}, activeDays: [] };
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

/** What the latest verified ticket says of telemetry: `undefined` before the first ticket (just activated). */
type TelemetryTicket = Pick<ValidationTicket, 'telemetryWindow'> | undefined;

/**
 * Whether usage may be counted now: the user consented, and the latest ticket did not say the license's tier
 * forbids telemetry (a ticket without `telemetryWindow`). Before the first ticket the tier is not known yet:
 * usage is counted but nothing is sent until a ticket permits it (and dropped if it does not).
 *
 * @example
 * ```ts
 * if (mayCountUsage(stored.consentVersion, ticket)) usage = withFeatureHit(usage, id, allowed, now);
 * ```
 */
export function mayCountUsage(consentVersion: number, ticket: TelemetryTicket): boolean {
  return consentVersion > 0 && (ticket === undefined || ticket.telemetryWindow !== undefined);
}

/**
 * The block the next validation carries, with the window it summarises, or `undefined`. A window is sent
 * only with consent, under a ticket that permits telemetry, and once that ticket names a later server day
 * than the window's `window_start`: the server keeps one block per machine and UTC day, and a block sent
 * under such a ticket is always the first of its day (never dropped as `t1.duplicate_window`).
 *
 * @example
 * ```ts
 * const outgoing = outgoingUsage(stored.usage, stored.consentVersion, ticket);
 * await validate(device, { ...session, ...(outgoing === undefined ? {} : { telemetry: outgoing.block }) });
 * ```
 */
export function outgoingUsage(usage: UsageWindow | undefined, consentVersion: number, ticket: TelemetryTicket): { block: TelemetryBlock; sent: UsageWindow } | undefined {
  const window = ticket?.telemetryWindow;
  if (usage === undefined || window === undefined || usage.windowStart === 0 || usage.windowStart >= window) return undefined;
  const block = telemetryBlockOf(usage, consentVersion);
  return block === undefined ? undefined : { block, sent: usage };
}

/**
 * The usage kept after a verified ticket: none when the ticket forbids telemetry (or consent is gone);
 * else the window moves under the ticket's marker when it was just sent (what remains was counted while the
 * request was away) or had none yet.
 *
 * @param usage - What is counted now.
 * @param consentVersion - The accepted privacy-notice version.
 * @param ticket - The ticket just verified.
 * @param sent - Whether this validation carried the window's block.
 * @returns The usage to keep.
 * @example
 * ```ts
 * stored = withUsage(stored, usageAfterTicket(stored.usage, stored.consentVersion, ticket, outgoing !== undefined));
 * ```
 */
export function usageAfterTicket(usage: UsageWindow | undefined, consentVersion: number, ticket: Pick<ValidationTicket, 'telemetryWindow'>, sent: boolean): UsageWindow | undefined {
  const window = ticket.telemetryWindow;
  if (usage === undefined || window === undefined || consentVersion <= 0) return undefined;
  return sent || usage.windowStart === 0 ? { ...usage, windowStart: window } : { ...usage, windowStart: Math.min(usage.windowStart, window) };
}

/**
 * Two windows as one (a block that could not be sent rejoins what was counted meanwhile), each field kept
 * within the same caps the counting applies.
 *
 * @example
 * ```ts
 * stored = withUsage(stored, mergeUsage(outgoing.sent, stored.usage));
 * ```
 */
export function mergeUsage(earlier: UsageWindow, later: UsageWindow | undefined): UsageWindow {
  if (later === undefined) return earlier;
  const featureHits: Record<string, number> = { ...earlier.featureHits };
  for (const [id, hits] of Object.entries(later.featureHits)) {
    if (id in featureHits || Object.keys(featureHits).length < caps.features) featureHits[id] = Math.min(caps.hits, (featureHits[id] ?? 0) + hits);
  }
  const histogram = earlier.histogram.map((count, index) => Math.min(caps.sessions, count + later.histogram[index]!)) as [number, number, number, number];
  const activeDays = [...new Set([...earlier.activeDays, ...later.activeDays])].sort((a, b) => a - b).slice(-caps.days);
  return { windowStart: earlier.windowStart, sessionCount: Math.min(caps.sessions, earlier.sessionCount + later.sessionCount), histogram, featureHits, activeDays };
}

/**
 * `record` with `usage` set, or without the field when `usage` is `undefined`.
 *
 * @example
 * ```ts
 * stored = withUsage(stored, undefined); // nothing counted is kept
 * ```
 */
export function withUsage<Record extends { readonly usage?: UsageWindow }>(record: Record, usage: UsageWindow | undefined): Record {
  const { usage: previous, ...rest } = record;
  void previous;
  return (usage === undefined ? rest : { ...rest, usage }) as Record;
}
