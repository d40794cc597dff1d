import { AdminError } from '../../errors/admin';
import type { SqlClient } from '../../storage/sql-client';
import { addDays, dayStart, daysBetween, isAnalyticsDay } from './analytics-days';

/** Bounds of the raw export. */
export interface AnalyticsExportLimits {
  /** Rows one response carries at most (`limit` may ask for fewer). */
  readonly maxRows: number;
  /** Widest `from`–`to` range, in days. */
  readonly maxDays: number;
}

/** A validated export request. */
export interface AnalyticsExportQuery {
  readonly from: string;
  readonly to: string;
  readonly format: 'ndjson' | 'csv';
  readonly limit: number;
  /** Resume after this event id (the `event_id` of the last row received, or `next_cursor`). */
  readonly after: string | undefined;
  readonly kind: 'activation' | 'check_in' | undefined;
  readonly productId: string | undefined;
}

/** The columns of an exported event, in CSV order. */
export const analyticsExportColumns = Object.freeze([
  'event_id',
  'kind',
  'occurred_at',
  'product_id',
  'policy_id',
  'tier',
  'release_id',
  'app_version',
  'platform',
  'offline',
  'device_pseudonym',
  'license_pseudonym',
] as const);

const cursorPattern = /^[1-9]\d{0,17}$/;

function refuse(message: string): never {
  throw new AdminError('invalid_request', `Invalid request. ${message}`);
}

/**
 * Validates `GET /analytics/export`'s query: `from`, `to` (`YYYY-MM-DD`, inclusive, at most `maxDays`),
 * `format` (`ndjson` by default, or `csv`), `limit` (1 to `maxRows`, default `maxRows`), `cursor` (an
 * event id: resume after it), and the filters `kind` and `product_id`.
 *
 * @param input - The query.
 * @param limits - The bounds.
 * @returns The request.
 * @throws AdminError `invalid_request` naming the field.
 * @example
 * ```ts
 * import { parseAnalyticsExportQuery } from '@tollgate/core/license';
 * const query = parseAnalyticsExportQuery({ from: '2025-03-01', to: '2025-03-07', format: 'csv' }, { maxRows: 100_000, maxDays: 92 });
 * ```
 */
export function parseAnalyticsExportQuery(input: Readonly<Record<string, unknown>>, limits: AnalyticsExportLimits): AnalyticsExportQuery {
  const known = new Set(['from', 'to', 'format', 'limit', 'cursor', 'kind', 'product_id']);
  const unknown = Object.keys(input).find((key) => !known.has(key));
  if (unknown !== undefined) refuse(`${unknown.slice(0, 64)}: not a parameter of the export (from, to, format, limit, cursor, kind, product_id).`);
  if (!isAnalyticsDay(input.from)) refuse('from: a day as YYYY-MM-DD.');
  if (!isAnalyticsDay(input.to)) refuse('to: a day as YYYY-MM-DD.');
  const span = daysBetween(input.from, input.to);
  if (span < 0) refuse('to: on or after from.');
  if (span + 1 > limits.maxDays) refuse(`to: at most ${limits.maxDays} days after from (inclusive).`);
  const format = input.format ?? 'ndjson';
  if (format !== 'ndjson' && format !== 'csv') refuse('format: ndjson or csv.');
  const limitText = input.limit ?? String(limits.maxRows);
  if (typeof limitText !== 'string' || !/^\d{1,9}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > limits.maxRows) refuse(`limit: an integer from 1 to ${limits.maxRows}.`);
  const cursor = input.cursor;
  if (cursor !== undefined && (typeof cursor !== 'string' || !cursorPattern.test(cursor))) refuse('cursor: the event_id of the last row received (or next_cursor).');
  const kind = input.kind;
  if (kind !== undefined && kind !== 'activation' && kind !== 'check_in') refuse('kind: activation or check_in.');
  const productId = input.product_id;
  if (productId !== undefined && (typeof productId !== 'string' || productId.length === 0 || productId.length > 128)) refuse('product_id: a product id.');
  return { from: input.from, to: input.to, format, limit: Number(limitText), after: cursor, kind, productId };
}

type EventRow = Record<(typeof analyticsExportColumns)[number], unknown>;

// $1–$4 range and filters, $5 vendor, $6 the event id to start after.
const exportWhere = `vendor_id = $5 AND occurred_at >= $1 AND occurred_at < $2 AND ($3::text IS NULL OR kind = $3) AND ($4::text IS NULL OR product_id = $4) AND event_id > $6::bigint`;

function whereParams(vendorId: string, query: AnalyticsExportQuery, after: string): (string | Date | null)[] {
  return [dayStart(query.from), dayStart(addDays(query.to, 1)), query.kind ?? null, query.productId ?? null, vendorId, after];
}

async function page(sql: SqlClient, vendorId: string, query: AnalyticsExportQuery, after: string, size: number): Promise<EventRow[]> {
  const { rows } = await sql.query<EventRow>(
    `SELECT event_id::text AS event_id, kind, occurred_at, product_id, policy_id, tier, release_id, app_version, platform, offline, device_pseudonym, license_pseudonym
     FROM license_analytics_events WHERE ${exportWhere} ORDER BY license_analytics_events.event_id LIMIT $7`,
    [...whereParams(vendorId, query, after), size],
  );
  return rows;
}

/**
 * The cursor after a complete response: the id of its last row when more rows follow it, else `null`.
 * Read before streaming, so it can go in a header.
 *
 * @param sql - The database.
 * @param vendorId - The caller's vendor.
 * @param query - The export request.
 * @returns The cursor of the next response, or `null` when this response ends the export.
 * @example
 * ```ts
 * import { analyticsExportNextCursor } from '@tollgate/core/license';
 * const next = await analyticsExportNextCursor(sql, vendorId, query);
 * ```
 */
export async function analyticsExportNextCursor(sql: SqlClient, vendorId: string, query: AnalyticsExportQuery): Promise<string | null> {
  const { rows } = await sql.query<{ event_id: string }>(`SELECT event_id::text AS event_id FROM license_analytics_events WHERE ${exportWhere} ORDER BY license_analytics_events.event_id OFFSET $7 LIMIT 2`, [
    ...whereParams(vendorId, query, query.after ?? '0'),
    query.limit - 1,
  ]);
  // A row after the limit-th means this response is not the last: resume after the limit-th.
  return rows.length === 2 ? rows[0]!.event_id : null;
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = value instanceof Date ? value.toISOString() : String(value);
  // Cells a spreadsheet would run as a formula are defused (OWASP CSV injection).
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function jsonLine(row: EventRow): string {
  const record = Object.fromEntries(analyticsExportColumns.map((column) => [column, row[column] instanceof Date ? (row[column] as Date).toISOString() : (row[column] ?? null)]));
  return `${JSON.stringify(record)}\n`;
}

/**
 * Streams the raw detail events of a vendor in event-id order, as NDJSON lines or CSV (a header row
 * first), at most `query.limit` rows, read in pages of `pageSize` so memory stays flat. Each row names
 * its `event_id`: a client whose stream broke resumes with `cursor=<last event_id received>`.
 *
 * @param sql - The database.
 * @param vendorId - The caller's vendor.
 * @param query - The export request.
 * @param pageSize - Rows per database read (default 1000).
 * @returns Chunks of text.
 * @example
 * ```ts
 * import { analyticsExportChunks } from '@tollgate/core/license';
 * for await (const chunk of analyticsExportChunks(sql, vendorId, query)) write(chunk);
 * ```
 */
export async function* analyticsExportChunks(sql: SqlClient, vendorId: string, query: AnalyticsExportQuery, pageSize = 1000): AsyncGenerator<string> {
  if (query.format === 'csv') yield `${analyticsExportColumns.join(',')}\r\n`;
  let after = query.after ?? '0';
  let remaining = query.limit;
  while (remaining > 0) {
    const rows = await page(sql, vendorId, query, after, Math.min(pageSize, remaining));
    if (rows.length === 0) return;
    yield rows.map((row) => (query.format === 'csv' ? `${analyticsExportColumns.map((column) => csvCell(row[column])).join(',')}\r\n` : jsonLine(row))).join('');
    remaining -= rows.length;
    after = String(rows.at(-1)!.event_id);
    if (rows.length < Math.min(pageSize, remaining + rows.length)) return;
  }
}
