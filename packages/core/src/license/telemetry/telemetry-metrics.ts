import type { SqlClient } from '../../storage/sql-client';
import { telemetryCounterTotals } from './telemetry-counters';

/** One sample: its labels and value. */
export interface MetricSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** One metric family of the Prometheus text exposition format (version 0.0.4). */
export interface MetricFamily {
  /** `[a-zA-Z_:][a-zA-Z0-9_:]*`. */
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  readonly samples: readonly MetricSample[];
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Label values escape `\`, `"` and newlines; HELP text escapes `\` and newlines (the format's rules). */
const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const escapeHelp = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

/**
 * Renders metric families in the Prometheus text exposition format 0.0.4 (`# HELP`, `# TYPE`, one line
 * per sample, a final newline). Serve it as `text/plain; version=0.0.4; charset=utf-8`.
 *
 * @param families - The families (names and label names are checked).
 * @returns The exposition text.
 * @throws TypeError for an invalid metric or label name.
 * @example
 * ```ts
 * import { renderPrometheusText } from '@tollgate/core/license';
 * renderPrometheusText([{ name: 'up', help: 'Up.', type: 'gauge', samples: [{ labels: {}, value: 1 }] }]); // '# HELP up Up.\n# TYPE up gauge\nup 1\n'
 * ```
 */
export function renderPrometheusText(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    if (!metricName.test(family.name)) throw new TypeError(`invalid metric name ${JSON.stringify(family.name)}`);
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) {
      const labels = Object.entries(sample.labels).map(([name, value]) => {
        if (!labelName.test(name) || name.startsWith('__')) throw new TypeError(`invalid label name ${JSON.stringify(name)}`);
        return `${name}="${escapeLabel(value)}"`;
      });
      lines.push(`${family.name}${labels.length === 0 ? '' : `{${labels.join(',')}}`} ${Number.isFinite(sample.value) ? String(sample.value) : 'NaN'}`);
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/**
 * The license server's operational metrics, read cheaply at scrape time (grouped counts; no write is
 * added anywhere for them):
 *
 * - `tollgate_license_telemetry_counter_total{vendor_id,product_id,counter}` (counter): the telemetry
 *   counters by their spec names (`t1.stored`, `t1.no_consent`, `t1.tier_gate`, clip anomalies).
 * - `tollgate_license_telemetry_raw_rows{vendor_id}` (gauge): raw T1 rows held, and
 *   `tollgate_license_telemetry_raw_oldest_timestamp_seconds` (gauge): the oldest one's receipt time,
 *   which shows whether retention is enforced.
 * - `tollgate_license_licenses{vendor_id,product_id,status}` and `tollgate_license_machines{vendor_id,status}`
 *   (gauges), and `tollgate_license_machines_seen{vendor_id,window="24h"}` (gauge): machines whose last
 *   contact (activation, validation, heartbeat) is within the past day.
 *
 * @param sql - The database.
 * @param now - The scrape time.
 * @returns The families, for {@link renderPrometheusText}.
 * @example
 * ```ts
 * import { gatherLicenseMetrics, renderPrometheusText } from '@tollgate/core/license';
 * const text = renderPrometheusText(await gatherLicenseMetrics(sql, new Date()));
 * ```
 */
export async function gatherLicenseMetrics(sql: SqlClient, now: Date): Promise<MetricFamily[]> {
  const counters = await telemetryCounterTotals(sql);
  const raw = await sql.query<{ vendor_id: string; n: string }>('SELECT vendor_id, count(*)::text AS n FROM license_telemetry_raw GROUP BY vendor_id ORDER BY vendor_id');
  const oldest = await sql.query<{ at: Date | null }>('SELECT min(received_at) AS at FROM license_telemetry_raw');
  const licenses = await sql.query<{ vendor_id: string; product_id: string; status: string; n: string }>(
    'SELECT vendor_id, product_id, status, count(*)::text AS n FROM license_licenses GROUP BY vendor_id, product_id, status ORDER BY 1, 2, 3',
  );
  const machines = await sql.query<{ vendor_id: string; status: string; n: string; seen: string }>(
    `SELECT vendor_id, status, count(*)::text AS n, count(*) FILTER (WHERE last_seen_at > $1)::text AS seen FROM license_machines GROUP BY vendor_id, status ORDER BY 1, 2`,
    [new Date(now.getTime() - 86_400_000)],
  );
  const seen = new Map<string, number>();
  for (const row of machines.rows) seen.set(row.vendor_id, (seen.get(row.vendor_id) ?? 0) + Number(row.seen));
  const oldestAt = oldest.rows[0]?.at;
  return [
    {
      name: 'tollgate_license_telemetry_counter_total',
      help: 'Telemetry operational counters by spec name: t1.stored, t1.no_consent, t1.tier_gate and the clip anomalies.',
      type: 'counter',
      samples: counters.map((row) => ({ labels: { vendor_id: row.vendorId, product_id: row.productId, counter: row.counter }, value: row.count })),
    },
    { name: 'tollgate_license_telemetry_raw_rows', help: 'Raw T1 telemetry rows held.', type: 'gauge', samples: raw.rows.map((row) => ({ labels: { vendor_id: row.vendor_id }, value: Number(row.n) })) },
    {
      name: 'tollgate_license_telemetry_raw_oldest_timestamp_seconds',
      help: 'Receipt time of the oldest raw T1 telemetry row (absent when none is held).',
      type: 'gauge',
      samples: oldestAt === null || oldestAt === undefined ? [] : [{ labels: {}, value: Math.floor(new Date(oldestAt).getTime() / 1000) }],
    },
    {
      name: 'tollgate_license_licenses',
      help: 'Licenses by status.',
      type: 'gauge',
      samples: licenses.rows.map((row) => ({ labels: { vendor_id: row.vendor_id, product_id: row.product_id, status: row.status }, value: Number(row.n) })),
    },
    { name: 'tollgate_license_machines', help: 'Machines by status.', type: 'gauge', samples: machines.rows.map((row) => ({ labels: { vendor_id: row.vendor_id, status: row.status }, value: Number(row.n) })) },
    {
      name: 'tollgate_license_machines_seen',
      help: 'Machines whose last contact is within the window.',
      type: 'gauge',
      samples: [...seen].map(([vendorId, count]) => ({ labels: { vendor_id: vendorId, window: '24h' }, value: count })),
    },
  ];
}
