import { constantTimeEqual } from '../../../crypto/constant-time';
import { sha256 } from '../../../crypto/hash';
import { utf8Encode } from '../../../crypto/utf8';
import { AdminError } from '../../../errors/admin';
import { defineRoutes, route } from '../../../http/routes';
import { enforceTelemetryRetention } from '../../telemetry/telemetry-purge';
import { gatherLicenseMetrics, renderPrometheusText } from '../../telemetry/telemetry-metrics';
import { renderAdminError } from '../../../errors/render';
import { telemetryOperations } from '../../telemetry/telemetry-operations';
import type { RouteTable } from '../../../http/types';
import type { SqlClient } from '../../../storage/sql-client';
import type { Clock } from '../../../time/clock';
import type { LicenseLogSink } from '../logger';
import { startPeriodicJob } from '../jobs/periodic-job';
import type { LicenseModule, LicenseModuleContext } from './license-module';

/** The realm of the metrics route's `WWW-Authenticate` challenge. */
export const metricsRealm = 'tollgate-metrics';

/** The content type of the Prometheus text exposition format. */
export const prometheusContentType = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Whether an `Authorization` header carries `Bearer <token>`, compared in constant time: both sides are
 * hashed first, so neither the token's bytes nor its length leak through timing.
 */
function holdsToken(header: string | undefined, token: string): boolean {
  const presented = /^Bearer +([\x21-\x7e]{1,1024}) *$/i.exec(header ?? '')?.[1] ?? '';
  const digest = (text: string) => sha256(utf8Encode(text));
  return constantTimeEqual(digest(presented), digest(token)) && presented.length > 0;
}

/**
 * `GET /metrics`: the operational metrics (`gatherLicenseMetrics`: telemetry counters, raw T1 rows,
 * licenses and machines) in the Prometheus text format, for a scraper holding `LICENSE_METRICS_TOKEN`
 * as its bearer token (Prometheus `authorization: { credentials_file: … }`). A missing or wrong token is
 * 401 `invalid_token` with a `WWW-Authenticate` challenge; errors use the Admin JSON envelope, never
 * the client protocol's CBOR. Without a token the route does not exist: 404 `not_found` to everyone.
 *
 * @param options - The database, clock, token (`undefined`: the route is off) and logger.
 * @returns The table to mount under `/metrics`.
 * @example
 * ```ts
 * const tables = [{ prefix: '/metrics', table: metricsTable({ sql, clock, token, logger }) }];
 * ```
 */
export function metricsTable(options: { sql: SqlClient; clock: Clock; token: string | undefined; logger: LicenseLogSink }): RouteTable {
  const { token } = options;
  return defineRoutes({
    routes: [
      route({
        method: 'GET',
        path: '/metrics',
        handler: async (request) => {
          // Off unless configured: a plain 404 (the client protocol's table would answer a CBOR 400).
          if (token === undefined) throw new AdminError('not_found', 'No such route.');
          if (!holdsToken(request.headers['authorization'], token)) {
            throw new AdminError('invalid_token', 'A valid metrics bearer token is required.', { headers: { 'www-authenticate': `Bearer realm="${metricsRealm}"` } });
          }
          const text = renderPrometheusText(await gatherLicenseMetrics(options.sql, new Date(options.clock.now())));
          return { status: 200, headers: { 'content-type': prometheusContentType, 'cache-control': 'no-store' }, body: text };
        },
      }),
    ],
    renderError: (error) => {
      const rendered = renderAdminError(error);
      if (rendered.status >= 500) options.logger.error({ err: error }, 'the metrics route failed');
      return rendered;
    },
  });
}

/**
 * The telemetry feature of the license server (docs/decisions.md "License: telemetry"):
 *
 * - Admin `POST /telemetry/purge` (`dsr:rw`) and `GET /telemetry/counters` (`analytics:r`), see
 *   `telemetryOperations`;
 * - `GET /metrics` (Prometheus text, bearer `LICENSE_METRICS_TOKEN`); 404 when the token is unset;
 * - a retention job on every instance, every `TELEMETRY_PURGE_INTERVAL_SECONDS` (and once at start):
 *   raw T1 rows older than `TELEMETRY_RAW_RETENTION_DAYS` are deleted in batches. Idempotent, so
 *   instances need no lock; a failed round is logged and retried next round.
 *
 * The intake itself (gates, clipping, counters) runs inside validate (`storeTelemetryBlock`).
 *
 * @param context - Database, audit, trust, clock, master key, logger, config.
 * @returns The module's operations, metrics table and retention job.
 * @example
 * ```ts
 * const telemetry = telemetryModule(context);
 * const retention = telemetry.workers?.[0]?.start();
 * ```
 */
export function telemetryModule(context: LicenseModuleContext): LicenseModule {
  const { sql, clock, logger } = context;
  const { rawRetentionDays, purgeIntervalSeconds, metricsToken } = context.options.telemetry;
  const startRetention = () => {
    const retention = startPeriodicJob(purgeIntervalSeconds * 1000, 0, async (isClosed) => {
      try {
        const deleted = await enforceTelemetryRetention(sql, new Date(clock.now()), rawRetentionDays, isClosed);
        if (deleted > 0) logger.info({ deleted, retentionDays: rawRetentionDays }, 'raw T1 telemetry past retention deleted');
        return deleted;
      } catch (error) {
        logger.error({ err: error }, 'enforcing raw T1 telemetry retention failed; retrying next round');
        return 0;
      }
    });
    void retention.runOnce();
    return retention;
  };
  return {
    adminOperations: telemetryOperations({ retentionDays: rawRetentionDays }),
    tables: [{ prefix: '/metrics', table: metricsTable({ sql, clock, token: metricsToken, logger }) }],
    workers: [{ start: startRetention }],
  };
}
