import { analyticsRolledUpThrough } from '../../analytics/analytics-rollup';
import { parseMetricQuery, queryMetricSeries } from '../../analytics/metric-query';
import { subscriptionOperations } from '../../analytics/subscriptions/subscription-operations';
import type { SqlClient } from '../../../storage/sql-client';
import type { SubscriptionMetricQuery, SubscriptionMetrics } from '../../analytics/subscriptions/subscription-delivery';
import { notificationAddressAllowed, type NotificationUrlPolicy } from '../../../webhooks/notification-url';
import { parseIpv4, parseIpv6 } from '../../../net/ip-ranges';
import type { LicenseHostResolver } from '../license-network';
import { startAnalyticsDeliveryJob, type AnalyticsDeliveryJobOptions } from '../jobs/analytics-delivery-job';
import type { LicenseAnalyticsConfig as AnalyticsConfig } from '../feature-configs';
import type { LicenseModule, LicenseModuleContext } from './license-module';

export type { AnalyticsSubscriptionOverrides } from '../service-options';

/** How long creation waits for the host to resolve before accepting it (delivery checks again). */
const creationResolveTimeoutMs = 3_000;

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
function publicDestination(resolve: LicenseHostResolver, policy: NotificationUrlPolicy) {
  return async (url: URL): Promise<string | undefined> => {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
    if (parseIpv4(host) !== undefined || parseIpv6(host) !== undefined) return undefined;
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
 * @returns The Admin operations and the delivery job (started by `workers.start()`).
 * @example
 * ```ts
 * const module = analyticsSubscriptionsModule(context);
 * const job = module.workers?.[0]?.start();
 * ```
 */
export function analyticsSubscriptionsModule(context: LicenseModuleContext): LicenseModule {
  const options = context.overrides;
  const alerts = options.alerts ?? {};
  const overrides = options.analyticsSubscriptions ?? {};
  const loopback = alerts.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {};
  const resolve = overrides.resolve ?? context.network?.resolve;
  const metrics = analyticsMetrics(context.sql, context.options.analytics);
  const network = context.network;
  const jobOptions: Omit<AnalyticsDeliveryJobOptions, 'transport'> = {
    sql: context.sql,
    masterKey: context.masterKey,
    metrics,
    clock: context.clock,
    logger: context.logger,
    ...loopback,
    ...(alerts.pollIntervalMs === undefined ? {} : { pollIntervalMs: alerts.pollIntervalMs }),
    ...(alerts.random === undefined ? {} : { random: alerts.random }),
    ...(alerts.backoff === undefined ? {} : { backoff: alerts.backoff }),
    ...(overrides.maxAttempts === undefined ? {} : { maxAttempts: overrides.maxAttempts }),
  };
  return {
    adminOperations: subscriptionOperations({
      masterKey: context.masterKey,
      metrics,
      ...(resolve === undefined ? {} : { checkDestination: publicDestination(resolve, loopback) }),
      ...loopback,
    }),
    // Without a transport (no `network`, no test transport) nothing is delivered: createLicenseService warns.
    workers:
      alerts.transport === undefined && network === undefined
        ? []
        : [
            {
              start: () =>
                startAnalyticsDeliveryJob({
                  ...jobOptions,
                  transport: alerts.transport ?? (network as NonNullable<typeof network>).createTransport({ ...loopback, ...(overrides.resolve === undefined ? {} : { resolve: overrides.resolve }) }),
                }),
            },
          ],
  };
}
