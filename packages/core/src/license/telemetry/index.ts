// Public exports of the telemetry area: pseudonyms, counters, purge, Admin operations, metrics, DSR.
export { deriveTelemetryPseudonymKey, telemetryPseudonymSubkeyLabel, telemetrySubject } from './telemetry-pseudonym';
export {
  incrementTelemetryCounters,
  readTelemetryCounters,
  telemetryCounterNames,
  telemetryCounterShards,
  telemetryCounterTotals,
  type TelemetryCounterDay,
  type TelemetryCounterName,
  type TelemetryCounterTotal,
} from './telemetry-counters';
export {
  countTelemetryPurge,
  enforceTelemetryRetention,
  purgeDateProblem,
  retentionBatchRows,
  runTelemetryPurge,
  telemetryPurgeWindow,
  telemetryRollupTables,
  type TelemetryPurgeCounts,
  type TelemetryPurgeWindow,
} from './telemetry-purge';
export { maxCounterRangeDays, telemetryOperations, type TelemetryOperationsDeps } from './telemetry-operations';
export { gatherLicenseMetrics, renderPrometheusText, type MetricFamily, type MetricSample } from './telemetry-metrics';
export { exportMachineTelemetry, telemetryErasureStep, telemetrySubjectDataSource, type TelemetryRowView } from './telemetry-subject-data';
export { clipTelemetryBlock, telemetryFieldCaps, telemetryGates, telemetryReceivedDay, telemetryWindowOf, type TelemetryAnomaly, type TelemetryGate, type TelemetryIntakeOutcome } from '../client-protocol/telemetry-intake';
