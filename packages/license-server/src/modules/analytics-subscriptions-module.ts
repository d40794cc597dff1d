import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { analyticsRolledUpThrough, parseMetricQuery, queryMetricSeries, subscriptionOperations, type SqlClient, type SubscriptionMetricQuery, type SubscriptionMetrics } from '@tollgate/core';
import { notificationAddressAllowed, type NotificationUrlPolicy } from '@tollgate/core/gateway';
import type { NotificationResolver } from '@tollgate/core/node';
import { startAnalyticsDeliveryJob, type AnalyticsDeliveryJobOptions } from '../jobs/analytics-delivery-job';
import type { AnalyticsConfig } from '../config/analytics-config';
import type { LicenseModule, LicenseModuleContext } from './license-module';

/**
 * Test overrides of metric subscriptions beyond the shared `alerts` ones (transport, loopback, poll
 * interval, jitter, backoff): the name resolution used at creation and by the default transport.
 */
export interface AnalyticsSubscriptionOverrides {
  readonly resolve?: NotificationResolver;
  readonly maxAttempts?: number;
}

/** How long creation waits for the host to resolve before accepting it (delivery checks again). */
const creationResolveTimeoutMs = 3_000;

/** The system resolver, as the delivery transport uses it (`/etc/hosts` and the OS configuration apply). */
const systemResolver: NotificationResolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

function metricQueryInput(query: SubscriptionMetricQuery) {
  return { ids: [...query.ids], from: query.from, to: query.to, granularity: query.granularity, group_by: [...query.groupBy] };
}

/**
 * The analytics metric API as subscriptions use it: the same validation and query code as
 * `GET /analytics/metrics`, and the rollup marker, so a period is delivered once its last day is rolled up.
 */
function analyticsMetrics(sql: SqlClient, config: AnalyticsConfig): SubscriptionMetrics {
  const limits = { maxDays: config.queryMaxDays };
  return {
    check: (query) => void parseMetricQuery(metricQueryInput(query), limits),
    series: (vendorId, query) =>
      queryMetricSeries(sql, vendorId, parseMetricQuery(metricQueryInput(query), limits), { kAnonymityThreshold: config.kAnonymityThreshold, maxSeries: config.queryMaxSeries }),
    ready: async (lastDay) => {
      const through = await analyticsRolledUpThrough(sql);
      return through !== null && through >= lastDay;
    },
  };
}

/**
 * The creation-time destination check: resolves the host (bounded) and refuses it when any address is
 * non-public. A name that does not resolve yet is accepted: the transport resolves and checks again
 * before every delivery, and connects only to the address it verified.
 */
function publicDestination(resolve: NotificationResolver, policy: NotificationUrlPolicy) {
  return async (url: URL): Promise<string | undefined> => {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
    if (isIP(host) !== 0) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<undefined>((settle) => {
      timer = setTimeout(() => settle(undefined), creationResolveTimeoutMs);
    });
    try {
      const answers = await Promise.race([resolve(host), timeout]);
      for (const answer of answers ?? []) {
        const verdict = notificationAddressAllowed(answer.address, policy);
        if (!verdict.allowed) return `${host} resolves to a non-public address (${verdict.kind.replace('_', '-')}); webhooks go to public addresses only.`;
      }
      return undefined;
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * The metric-subscriptions feature: `GET`/`POST /v1/admin/analytics/subscriptions` and the delivery job
 * that sends each period's metrics, signed, retried and SSRF-safe (see `startAnalyticsDeliveryJob`).
 * Tests reuse the suspicion-alert overrides (`options.alerts`) and may add `options.analyticsSubscriptions`.
 *
 * @param context - Database, clock, master key, logger, config and start options.
 * @returns The Admin operations and the job's `close`.
 * @example
 * ```ts
 * const module = analyticsSubscriptionsModule(context);
 * await module.close?.();
 * ```
 */
export function analyticsSubscriptionsModule(context: LicenseModuleContext): LicenseModule {
  const options = context.options;
  const alerts = options.alerts ?? {};
  const overrides = options.analyticsSubscriptions ?? {};
  const loopback = alerts.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {};
  const resolve = overrides.resolve ?? systemResolver;
  const metrics = analyticsMetrics(context.sql, context.config.analytics);
  const jobOptions: AnalyticsDeliveryJobOptions = {
    sql: context.sql,
    masterKey: context.masterKey,
    metrics,
    clock: context.clock,
    logger: context.logger,
    resolve,
    ...loopback,
    ...(alerts.transport === undefined ? {} : { transport: alerts.transport }),
    ...(alerts.pollIntervalMs === undefined ? {} : { pollIntervalMs: alerts.pollIntervalMs }),
    ...(alerts.random === undefined ? {} : { random: alerts.random }),
    ...(alerts.backoff === undefined ? {} : { backoff: alerts.backoff }),
    ...(overrides.maxAttempts === undefined ? {} : { maxAttempts: overrides.maxAttempts }),
  };
  const job = startAnalyticsDeliveryJob(jobOptions);
  return {
    adminOperations: subscriptionOperations({ masterKey: context.masterKey, metrics, checkDestination: publicDestination(resolve, loopback), ...loopback }),
    close: () => job.close(),
  };
}
