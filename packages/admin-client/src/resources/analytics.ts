import * as v from 'valibot';
import { AdminResponseError } from '../errors';
import type { AdminList, AdminTransport, MutationOptions, ReadOptions } from '../transport-types';

/** The answer of `GET /analytics/definitions`: the metric catalog. */
export const AnalyticsDefinitionsSchema = v.looseObject({
  metrics: v.array(v.looseObject({ id: v.string(), unit: v.string(), description: v.string(), aggregation: v.string(), dimensions: v.array(v.string()) })),
  granularities: v.array(v.string()),
  /** The relative standard error of `distinct` metrics (HyperLogLog estimates). */
  distinct_relative_standard_error: v.number(),
  k_anonymity_threshold: v.number(),
});
/** The answer of `analytics.definitions()`. */
export type AnalyticsDefinitions = v.InferOutput<typeof AnalyticsDefinitionsSchema>;

/** The answer of `GET /analytics/metrics`: one series per metric and group; small buckets suppressed (`value: null`). */
export const AnalyticsMetricsSchema = v.looseObject({
  from: v.string(),
  to: v.string(),
  granularity: v.string(),
  group_by: v.array(v.string()),
  k_anonymity_threshold: v.number(),
  series: v.array(
    v.looseObject({
      metric: v.string(),
      unit: v.string(),
      group: v.record(v.string(), v.nullable(v.string())),
      points: v.array(v.looseObject({ start: v.string(), value: v.nullable(v.number()), suppressed: v.boolean() })),
    }),
  ),
});
/** The answer of `analytics.metrics()`. */
export type AnalyticsMetrics = v.InferOutput<typeof AnalyticsMetricsSchema>;

/** One exported event (an NDJSON line of `GET /analytics/export`). */
export const AnalyticsExportRowSchema = v.looseObject({
  /** Ascending: pass the last one received as `cursor` to resume. */
  event_id: v.string(),
  /** `activation` or `check_in`. */
  kind: v.string(),
  occurred_at: v.string(),
  product_id: v.nullable(v.string()),
  device_pseudonym: v.nullable(v.string()),
  license_pseudonym: v.nullable(v.string()),
});
/** An exported event. */
export type AnalyticsExportRow = v.InferOutput<typeof AnalyticsExportRowSchema>;

/** A metric subscription with its delivery status (its signing secret is shown at creation only). */
export const AnalyticsSubscriptionSchema = v.looseObject({
  subscription_id: v.string(),
  description: v.nullable(v.string()),
  metric_ids: v.array(v.string()),
  granularity: v.string(),
  group_by: v.array(v.string()),
  schedule: v.string(),
  url: v.string(),
  signing_key_id: v.string(),
  active: v.boolean(),
  created_at: v.string(),
  updated_at: v.string(),
  disabled_at: v.nullable(v.string()),
  delivery: v.looseObject({ next_attempt_at: v.nullable(v.string()), consecutive_failures: v.number() }),
});
/** A metric subscription. */
export type AnalyticsSubscription = v.InferOutput<typeof AnalyticsSubscriptionSchema>;

/** The answer of creating a subscription (201): `signing_secret` is never shown again. */
export const AnalyticsSubscriptionCreatedSchema = v.looseObject({ subscription: AnalyticsSubscriptionSchema, signing_secret: v.string() });
/** The answer of `analytics.subscriptions.create()`. */
export type AnalyticsSubscriptionCreated = v.InferOutput<typeof AnalyticsSubscriptionCreatedSchema>;

/** The answer of enabling or disabling a subscription. */
export const AnalyticsSubscriptionUpdatedSchema = v.looseObject({ subscription: AnalyticsSubscriptionSchema, changed: v.boolean() });
/** The answer of `analytics.subscriptions.setActive()`. */
export type AnalyticsSubscriptionUpdated = v.InferOutput<typeof AnalyticsSubscriptionUpdatedSchema>;

/** A metric query: UTC days, inclusive. */
export interface AnalyticsMetricsQuery {
  /** 1 to 10 metric ids (`definitions()` lists them). */
  readonly ids: readonly string[];
  /** `YYYY-MM-DD`. */
  readonly from: string;
  readonly to: string;
  readonly granularity?: 'day' | 'week' | 'month';
  /** Up to 3 dimensions every requested metric has. */
  readonly groupBy?: readonly string[];
}

/** An export request: UTC days, inclusive. */
export interface AnalyticsExportQuery {
  readonly from: string;
  readonly to: string;
  /** `ndjson` (the default: rows parsed to objects) or `csv` (raw lines, the header first). */
  readonly format?: 'ndjson' | 'csv';
  /** Most rows this response carries (default and maximum: the server's export bound). */
  readonly limit?: number;
  /** Resume after this event id: a previous stream's `lastEventId`. */
  readonly cursor?: string;
  readonly kind?: 'activation' | 'check_in';
  readonly productId?: string;
}

/**
 * A streamed export: iterate it once (each iteration sends the request again). `lastEventId` follows the
 * rows received, so a broken stream, or an export cut at `limit`, resumes with `cursor: lastEventId`.
 */
export interface AnalyticsExportStream<Row> extends AsyncIterable<Row> {
  /** The `event_id` of the last row received, `undefined` before the first. */
  readonly lastEventId: string | undefined;
}

/** What `analytics.subscriptions.create()` sends. */
export interface AnalyticsSubscriptionCreateInput {
  readonly metricIds: readonly string[];
  readonly schedule: 'daily' | 'weekly' | 'monthly';
  /** A public https URL. */
  readonly url: string;
  readonly granularity?: 'day' | 'week' | 'month';
  readonly groupBy?: readonly string[];
  readonly description?: string;
}

/** The `analytics.subscriptions` sub-group (`GET`/`POST /analytics/subscriptions`). */
export interface AnalyticsSubscriptionsResource {
  /** `GET /analytics/subscriptions`: paginated, newest first. */
  list(query?: { readonly limit?: number }, options?: ReadOptions): AdminList<AnalyticsSubscription>;
  /** `POST /analytics/subscriptions`: creates one; answers its signing secret once. */
  create(input: AnalyticsSubscriptionCreateInput, options?: MutationOptions): Promise<AnalyticsSubscriptionCreated>;
  /** `POST /analytics/subscriptions` `{ subscription_id, active }`: disables or re-enables one (the route has no DELETE). */
  setActive(subscriptionId: string, active: boolean, options?: MutationOptions): Promise<AnalyticsSubscriptionUpdated>;
}

/** The `analytics` group (scope `analytics:r`). */
export interface AnalyticsResource {
  readonly subscriptions: AnalyticsSubscriptionsResource;
  /** `GET /analytics/definitions`. */
  definitions(options?: ReadOptions): Promise<AnalyticsDefinitions>;
  /** `GET /analytics/metrics`. */
  metrics(query: AnalyticsMetricsQuery, options?: ReadOptions): Promise<AnalyticsMetrics>;
  /**
   * `GET /analytics/export`, streamed without buffering: NDJSON rows parsed to objects, or CSV lines as text.
   *
   * @example
   * ```ts
   * const rows = admin.analytics.export({ from: '2025-03-01', to: '2025-03-07' });
   * try { for await (const row of rows) write(row); } catch { resumeFrom(rows.lastEventId); }
   * ```
   */
  export(query: AnalyticsExportQuery & { readonly format?: 'ndjson' }, options?: ReadOptions): AnalyticsExportStream<AnalyticsExportRow>;
  export(query: AnalyticsExportQuery & { readonly format: 'csv' }, options?: ReadOptions): AnalyticsExportStream<string>;
  export(query: AnalyticsExportQuery, options?: ReadOptions): AnalyticsExportStream<AnalyticsExportRow | string>;
}

/** The first CSV cell of a data row: the event id (digits, never quoted); `undefined` for the header. */
const csvEventId = (line: string): string | undefined => /^(\d+),/.exec(line)?.[1];

function parseNdjsonRow(line: string): AnalyticsExportRow {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    parsed = undefined;
  }
  const row = v.safeParse(AnalyticsExportRowSchema, parsed);
  if (!row.success) throw new AdminResponseError('invalid_response', `GET /analytics/export sent a line that is not an export row: ${line.slice(0, 80)}`, 200, undefined);
  return row.output;
}

function exportStream(transport: AdminTransport, query: AnalyticsExportQuery, options: ReadOptions | undefined): AnalyticsExportStream<AnalyticsExportRow | string> {
  const csv = query.format === 'csv';
  const wire = { from: query.from, to: query.to, format: query.format, limit: query.limit, cursor: query.cursor, kind: query.kind, product_id: query.productId };
  const stream = {
    lastEventId: undefined as string | undefined,
    async *[Symbol.asyncIterator](): AsyncGenerator<AnalyticsExportRow | string> {
      for await (const raw of transport.requestLines({ method: 'GET', path: '/analytics/export', kind: 'read', query: wire, options })) {
        // CSV rows end in CRLF; a splitter on LF leaves the CR.
        const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
        if (line.length === 0) continue;
        if (csv) {
          stream.lastEventId = csvEventId(line) ?? stream.lastEventId;
          yield line;
        } else {
          const row = parseNdjsonRow(line);
          stream.lastEventId = row.event_id;
          yield row;
        }
      }
    },
  };
  return stream;
}

/**
 * Builds the `analytics` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * import { createAdminClient } from '@tollgate/admin-client';
 * const admin = createAdminClient({ baseUrl, token });
 * const { series } = await admin.analytics.metrics({ ids: ['activations'], from: '2025-03-01', to: '2025-03-31', granularity: 'week' });
 * ```
 */
export function createAnalyticsResource(transport: AdminTransport): AnalyticsResource {
  const subscriptionsPath = '/analytics/subscriptions';
  return {
    subscriptions: {
      list: (query = {}, options) => transport.list({ path: subscriptionsPath, query: { limit: query.limit }, itemsKey: 'subscriptions', itemSchema: AnalyticsSubscriptionSchema, options }),
      create: async (input, options) => {
        const body = { metric_ids: input.metricIds, schedule: input.schedule, url: input.url, granularity: input.granularity, group_by: input.groupBy, description: input.description };
        return (await transport.request({ method: 'POST', path: subscriptionsPath, kind: 'mutation', body, schema: AnalyticsSubscriptionCreatedSchema, options })).body;
      },
      setActive: async (subscriptionId, active, options) =>
        (await transport.request({ method: 'POST', path: subscriptionsPath, kind: 'mutation', body: { subscription_id: subscriptionId, active }, schema: AnalyticsSubscriptionUpdatedSchema, options })).body,
    },
    definitions: async (options) => (await transport.request({ method: 'GET', path: '/analytics/definitions', kind: 'read', schema: AnalyticsDefinitionsSchema, options })).body,
    metrics: async (query, options) => {
      const wire = { ids: query.ids.join(','), from: query.from, to: query.to, granularity: query.granularity, group_by: query.groupBy?.join(',') };
      return (await transport.request({ method: 'GET', path: '/analytics/metrics', kind: 'read', query: wire, schema: AnalyticsMetricsSchema, options })).body;
    },
    export: ((query: AnalyticsExportQuery, options?: ReadOptions) => exportStream(transport, query, options)) as AnalyticsResource['export'],
  };
}
