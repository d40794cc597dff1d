export {
  suspicionWeights,
  suspicionKinds,
  maxSuspicionScore,
  defaultSuspicionSettings,
  type SuspicionKind,
  type SuspicionSettings,
  type SuspicionSignal,
  type SuspicionAlert,
  type SuspicionRecordResult,
  type SuspicionLedger,
} from './suspicion-signals';
export { createSqlSuspicionLedger, suspicionAlertQueue, suspicionAlertMaxAttempts, type SqlSuspicionLedgerOptions } from './sql-suspicion-ledger';
export {
  createSuspicionAlertDeliverer,
  suspicionAlertKey,
  suspicionAlertBody,
  suspicionAlertEvent,
  type SuspicionAlertKey,
  type SuspicionAlertDelivererDeps,
} from './suspicion-alert-delivery';
