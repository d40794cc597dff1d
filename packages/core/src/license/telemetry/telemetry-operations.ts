import * as v from 'valibot';
import { AdminError } from '../../errors/admin';
import { parseAdminInput, requireVendorProduct } from '../admin/admin-input';
import { adminOperation, type AdminCall, type AdminOperation } from '../admin/admin-operation';
import { readTelemetryCounters, utcDayOf } from './telemetry-counters';
import { countTelemetryPurge, purgeDateProblem, runTelemetryPurge, telemetryPurgeWindow } from './telemetry-purge';

/** What the telemetry operations need. */
export interface TelemetryOperationsDeps {
  /** `TELEMETRY_RAW_RETENTION_DAYS`: raw T1 rows older than this many days are purged. */
  readonly retentionDays: number;
}

/** The widest range `GET /telemetry/counters` answers, in days. */
export const maxCounterRangeDays = 366;

const dayText = v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a day, YYYY-MM-DD'));
const purgeQuerySchema = v.strictObject({ before: v.optional(dayText) });
const purgeBodySchema = v.optional(v.strictObject({ before: v.optional(dayText) }));
const countersQuerySchema = v.strictObject({
  from: v.optional(dayText),
  to: v.optional(dayText),
  product_id: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/, 'must be 32 lowercase hex digits'))),
});

/** `before` from the query or the JSON body (one place only), checked against today. */
function purgeBefore(call: Pick<AdminCall, 'query' | 'body' | 'now'>): string | undefined {
  const fromQuery = parseAdminInput(purgeQuerySchema, call.query).before;
  const fromBody = parseAdminInput(purgeBodySchema, call.body)?.before;
  if (fromQuery !== undefined && fromBody !== undefined) throw new AdminError('invalid_request', 'Give before in the query or in the body, not both.');
  const before = fromQuery ?? fromBody;
  const problem = before === undefined ? undefined : purgeDateProblem(before, utcDayOf(call.now));
  if (problem !== undefined) throw new AdminError('invalid_request', `Invalid request. ${problem}.`);
  return before;
}

/** A checked counters range: default the last 30 days, at most {@link maxCounterRangeDays}. */
function counterRange(query: Readonly<Record<string, string>>, now: Date): { from: string; to: string; productId?: string } {
  const input = parseAdminInput(countersQuerySchema, query);
  const today = utcDayOf(now);
  for (const [name, value] of [['from', input.from], ['to', input.to]] as const) {
    const problem = value === undefined ? undefined : purgeDateProblem(value, '9999-12-31');
    if (problem !== undefined) throw new AdminError('invalid_request', `Invalid request. ${problem.replace('before', name)}.`);
  }
  const to = input.to ?? today;
  const from = input.from ?? utcDayOf(new Date(Date.parse(`${to}T00:00:00Z`) - 29 * 86_400_000));
  if (from > to) throw new AdminError('invalid_request', 'Invalid request. from must not be later than to.');
  const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000 + 1;
  if (span > maxCounterRangeDays) throw new AdminError('invalid_request', `Invalid request. from..to spans ${span} days; at most ${maxCounterRangeDays}.`);
  return { from, to, ...(input.product_id === undefined ? {} : { productId: input.product_id }) };
}

/**
 * The telemetry operations of the Admin API (docs/decisions.md "License: telemetry"):
 *
 * - `POST /telemetry/purge` (scope `dsr:rw`, destructive: dry run unless `dry_run=false` with an
 *   Idempotency-Key). Removes the caller vendor's raw T1 rows received before `now −
 *   TELEMETRY_RAW_RETENTION_DAYS`; with `before=YYYY-MM-DD` (query, or `{ "before": … }` body; today
 *   or earlier) also the T1 rollups of days before it, and raw rows before it when that is later.
 *   Dry run `{ dry_run: true, cutoff, before, retention_days, raw_records, rollup_rows }`; confirmed
 *   `{ dry_run: false, cutoff, before, retention_days, deleted_raw_records, deleted_rollup_rows,
 *   journaled: true }`, with a `telemetry.purge` audit event in the same transaction.
 * - `GET /telemetry/counters?from&to&product_id` (scope `analytics:r`): the operational counters
 *   (`t1.stored`, `t1.no_consent`, `t1.tier_gate`, clip anomalies) per UTC day and product, and their
 *   totals over the range (default the last 30 days, at most 366).
 *
 * @param deps - The retention.
 * @returns The operations.
 * @example
 * ```ts
 * import { telemetryOperations } from '@tollgate/core/license';
 * const operations = telemetryOperations({ retentionDays: 30 });
 * ```
 */
export function telemetryOperations(deps: TelemetryOperationsDeps): AdminOperation[] {
  return [
    adminOperation({
      method: 'POST',
      path: '/telemetry/purge',
      docs: { summary: 'Purges raw telemetry older than the retention (or before a given day).', description: 'before may be given in the query or in the body, not both.', query: purgeQuerySchema, body: purgeBodySchema },
      scopes: ['dsr:rw'],
      kind: 'destructive',
      maxBodyBytes: 1024,
      run: async (call) => {
        const window = telemetryPurgeWindow(call.now, deps.retentionDays, purgeBefore(call));
        const shown = { cutoff: window.cutoff.toISOString(), before: window.before ?? null, retention_days: deps.retentionDays };
        if (call.dryRun) {
          const counts = await countTelemetryPurge(call.sql, call.actor.vendorId, window);
          return { body: { dry_run: true, ...shown, raw_records: counts.rawRecords, rollup_rows: counts.rollupRows } };
        }
        const removed = await runTelemetryPurge(call.sql, call.actor.vendorId, window);
        const deleted = { deleted_raw_records: removed.rawRecords, deleted_rollup_rows: removed.rollupRows };
        await call.audit({ action: 'telemetry.purge', targetType: 'vendor', targetId: call.actor.vendorId, summary: { ...shown, ...deleted } });
        return { body: { dry_run: false, ...shown, ...deleted, journaled: true } };
      },
    }),
    adminOperation({
      method: 'GET',
      path: '/telemetry/counters',
      docs: { summary: 'Reads daily telemetry counters over a day range.', query: countersQuerySchema },
      scopes: ['analytics:r'],
      kind: 'read',
      run: async (call) => {
        const range = counterRange(call.query, call.now);
        if (range.productId !== undefined) await requireVendorProduct(call.sql, call.actor.vendorId, range.productId);
        const days = await readTelemetryCounters(call.sql, call.actor.vendorId, range);
        const totals: Record<string, number> = {};
        for (const day of days) totals[day.counter] = (totals[day.counter] ?? 0) + day.count;
        return {
          body: {
            from: range.from,
            to: range.to,
            product_id: range.productId ?? null,
            totals,
            days: days.map((day) => ({ day: day.day, product_id: day.productId, counter: day.counter, count: day.count })),
          },
        };
      },
    }),
  ];
}
