import { analyticsEventErasure, exportAnalyticsEvents } from '../../analytics/analytics-subject';
import { coreSubjectDataSources } from '../../dsr/core-sources';
import { deriveAnalyticsKeys, type AnalyticsKeys } from '../../analytics/analytics-keys';
import { dsrBounds, type DsrBounds } from '../../dsr/dsr-bounds';
import { dsrOperations } from '../../dsr/dsr-operations';
import { telemetrySubjectDataSource } from '../../telemetry/telemetry-subject-data';
import type { SubjectDataSource } from '../../dsr/subject-data-source';
import type { LicenseModule, LicenseModuleContext } from './license-module';

/** Start options the DSR module reads (tests shrink the bounds to reach them with a handful of rows). */
export interface DsrStartOptions {
  readonly dsr?: { readonly bounds?: Partial<DsrBounds> };
}

/**
 * Every place the license service keeps subject data, in export order: the license's own records
 * (license row, billing, accounts), the machines' client-protocol records, suspicion signals, raw T1
 * telemetry and analytics detail events. A feature that stores data about a machine or license adds its
 * source here; the export and the erasure cascade both walk this list.
 *
 * @param context - The module context (the master key derives the pseudonym keys).
 * @returns The sources.
 * @example
 * ```ts
 * const sources = subjectDataSources(context);
 * ```
 */
export function subjectDataSources(context: LicenseModuleContext, bounds: DsrBounds = dsrBounds): SubjectDataSource[] {
  return [...coreSubjectDataSources, telemetrySubjectDataSource(context.masterKey), analyticsSource(deriveAnalyticsKeys(context.masterKey), bounds)];
}

/**
 * Analytics detail events as a subject data source: the events of the machine (or of the license), the
 * pseudonymised ones under `license_analytics_events` and those still in the outbox under
 * `license_analytics_outbox`; erasure is the analytics step, per machine (every event belongs to one).
 */
function analyticsSource(keys: AnalyticsKeys, bounds: DsrBounds): SubjectDataSource {
  return {
    name: 'analytics',
    async export(sql, scope, scan) {
      const subject = scope.subject.kind === 'machine' ? { machineId: scope.subject.id } : { licenseId: scope.license.licenseId };
      const { events, truncated } = await exportAnalyticsEvents(sql, keys, subject, { limit: bounds.maxScanRecords });
      const days = [...new Set(events.map((event) => event.occurred_at.slice(0, 10)))];
      // One more record than the bound when truncated: the charge then refuses the export by name.
      scan.charge({ dates: days, records: events.length + (truncated ? 1 : 0), matched: events.length });
      return { license_analytics_events: events.filter((event) => !event.pending), license_analytics_outbox: events.filter((event) => event.pending) };
    },
    machineErasure: analyticsEventErasure(keys),
  };
}

/**
 * The data-subject-request feature (license spec, "Data-subject requests"): `POST /dsr/export`,
 * `POST /dsr/delete` and its alias `DELETE /machines/{id}`, over every subject data source.
 *
 * @param context - Database, audit, trust, clock, master key, logger, config, start options.
 * @returns The module's Admin operations.
 * @example
 * ```ts
 * const module = dsrModule(context);
 * ```
 */
export function dsrModule(context: LicenseModuleContext): LicenseModule {
  const bounds: DsrBounds = { ...dsrBounds, ...context.overrides.dsr?.bounds };
  return { adminOperations: dsrOperations({ sources: subjectDataSources(context, bounds), bounds }) };
}
