import type { ClientProtocolNotice } from '../client-protocol/client-protocol-deps';
import type { SuspicionLedger } from '../suspicion/suspicion-signals';
import type { LicenseLogSink } from './logger';

/**
 * Where the client protocol's notices go on the license server: rollback reports and telemetry failures
 * to the log, suspicious events to the suspicion ledger. Recording a signal is a database write that the
 * device's request never waits for; a failure to record is logged and the signal is lost (it only feeds
 * a score), never the request.
 *
 * @param options - The logger and the suspicion ledger.
 * @returns The `notify` function of `clientProtocolRoutes`.
 * @example
 * ```ts
 * import { createSqlSuspicionLedger, clientProtocolRoutes, clientNoticeHandler } from '@tollgate/core/license';
 * const notify = clientNoticeHandler({ logger, suspicion: createSqlSuspicionLedger(sql, { clock }) });
 * ```
 */
export function clientNoticeHandler(options: { logger: LicenseLogSink; suspicion: Pick<SuspicionLedger, 'record'> }): (notice: ClientProtocolNotice) => void {
  const { logger, suspicion } = options;
  return (notice) => {
    switch (notice.kind) {
      case 'rollback_reported':
        logger.warn(
          { licenseId: notice.licenseId, machineId: notice.machineId, ...notice.details },
          'a device reports a later revocation epoch or security floor than this server has: was the database restored from an older backup?',
        );
        return;
      case 'telemetry_not_stored':
        logger.error({ err: notice.error, machineId: notice.machineId }, 'a telemetry block could not be stored; the validation went on');
        return;
      case 'suspicious':
        suspicion.record(notice.signal).catch((error: unknown) => logger.warn({ err: error, kind: notice.signal.kind }, 'a suspicion signal could not be recorded'));
    }
  };
}
