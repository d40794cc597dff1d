/**
 * Shared pieces of the telemetry suites: a known master key (so tests recompute pseudonyms), blocks, and
 * readers of the raw rows and counters.
 */
import { hexEncode, type SqlClient } from '@tollgate/core';
import { deriveTelemetryPseudonymKey, telemetrySubject, type TelemetryBlock } from '@tollgate/core/license';

/** The master key the telemetry benches start with (`LICENSE_MASTER_KEY`). */
export const telemetryMasterKey = new Uint8Array(32).map((_, index) => (index * 37 + 11) % 256);

/** Environment giving the bench {@link telemetryMasterKey}. */
export const telemetryEnv = { LICENSE_MASTER_KEY: hexEncode(telemetryMasterKey) };

/** The pseudonym the server stores a machine's rows under. */
export const subjectOf = (machineId: string) => telemetrySubject(deriveTelemetryPseudonymKey(telemetryMasterKey), machineId);

/** A block within every cap, with `fields` over it. */
export const telemetryBlock = (fields: Partial<TelemetryBlock> = {}): TelemetryBlock => ({
  consentVersion: 3,
  windowStart: 1_790_000_000,
  sessionCount: 12,
  sessionDurationHistogram: [4, 5, 2, 1],
  featureHits: new Map([
    ['edit', 40],
    ['export.pdf', 2],
  ]),
  daysActive: 6,
  ...fields,
});

/** The raw rows of one machine, oldest first. */
export async function rawRowsOf(sql: SqlClient, machineId: string) {
  const { rows } = await sql.query<Record<string, unknown>>('SELECT * FROM license_telemetry_raw WHERE subject = $1 ORDER BY telemetry_id', [subjectOf(machineId)]);
  return rows;
}

/** One product's counter totals (all days and shards). */
export async function countersOf(sql: SqlClient, productId: string): Promise<Record<string, number>> {
  const { rows } = await sql.query<{ counter: string; n: string }>('SELECT counter, sum(count)::text AS n FROM license_telemetry_counters WHERE product_id = $1 GROUP BY counter', [productId]);
  return Object.fromEntries(rows.map((row) => [row.counter, Number(row.n)]));
}

/** `after − before` per counter, zeros left out. */
export function counterDelta(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [name, value] of Object.entries(after)) if (value !== (before[name] ?? 0)) delta[name] = value - (before[name] ?? 0);
  return delta;
}

/**
 * Publishes `ids` as feature items of vendor A's product: the intake keeps only catalog feature ids
 * (review15 F2), so every id a suite expects stored must be in the catalog first.
 */
export async function allowFeatures(sql: SqlClient, product: { vendorId: string; productId: string }, ids: Iterable<string>): Promise<void> {
  await sql.query(
    `INSERT INTO license_catalog_items (vendor_id, product_id, kind, item_id, name, created_at, updated_at)
     SELECT $1, $2, 'feature', id, id, now(), now() FROM unnest($3::text[]) AS id ON CONFLICT DO NOTHING`,
    [product.vendorId, product.productId, [...ids]],
  );
}

/** The two-character ids `00`, `01`, … (base 36) the cap tests send: `count` of them. */
export const twoCharacterIds = (count: number) => Array.from({ length: count }, (_, index) => index.toString(36).padStart(2, '0'));
