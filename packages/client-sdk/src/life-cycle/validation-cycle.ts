import { constantTimeEqual } from '@tollgate/core/crypto';
import type { KillOrder, ValidationTicket } from '@tollgate/core/license';
import { heartbeat as heartbeatCall, validate as validateCall } from '../session-calls';
import type { ClientCore } from './client-core';
import { createClientVerification, type ClientVerification } from './client-verification';
import { sessionOf, tombstoneRecord } from './device-records';
import { createHeartbeatPacer, type HeartbeatPacer } from './heartbeat-pacing';
import { classifyFailure, refreshDelayMs, retryDelayMs, standingAt, upgradeRefreshDelayMs, usableStates, type LicenseState } from './license-state';
import { judgeRecord, standingEnds, ticketNotice, type LoadedLicense } from './record-standing';
import { decodeStoredLicense, encodeStoredLicense, type StoredLicense } from './stored-license';
import { recordAfterTicket } from './ticket-record';
import { emptyUsage, mergeUsage, outgoingUsage, withUsage } from './usage-telemetry';

// After a refusal the client still asks now and then: a suspended license may be reinstated.
const refusedRetryMs = 3_600_000;

/** The life of a stored license: restore, scheduled validation and heartbeats, and the standing in between. */
export interface ValidationCycle {
  readonly heartbeats: HeartbeatPacer;
  /** Loads and verifies the stored record, then schedules what comes next. Never rejects for a bad record. */
  restore(): Promise<LicenseState>;
  /** Validates now (or retries a restore that could not verify); never throws for network or server failures. */
  validateNow(): Promise<LicenseState>;
  /** Applies the standing of the loaded license and schedules the next validation and heartbeat. */
  startSchedule(): void;
  /** Arms the timer of the next standing change (grace end, expiry) of the loaded license. */
  armStanding(): void;
  /** Schedules a validation (or restore retry) after `delayMs`. */
  scheduleValidation(delayMs: number): void;
  /** The loaded license, if the app may use it at this moment (judged now, not when a timer last fired). */
  usableNow(): LoadedLicense | undefined;
}

/**
 * Builds the validation cycle of a license client on its core.
 *
 * @param core - The client's shared core.
 * @returns The cycle.
 * @example
 * ```ts
 * const cycle = createValidationCycle(core);
 * await core.exclusive(() => cycle.restore());
 * ```
 */
export function createValidationCycle(core: ClientCore): ValidationCycle {
  const { options, timers, events } = core;

  const scheduleValidation = (delayMs: number) => {
    if (!core.stopped)
      timers.set('validation', delayMs, () => {
        chargeElapsed(delayMs);
        return validateNow();
      });
  };
  /**
   * Timers run on monotonic time: while the device clock is set back, the time a timer waited still
   * moves the mark, so grace runs out as it would have (setting the clock back buys no time).
   */
  const chargeElapsed = (delayMs: number) => {
    const loaded = core.loaded;
    if (loaded === undefined || !core.clockSetBack()) return;
    core.mark = Math.max(core.mark, loaded.stored.clockMark) + Math.floor(delayMs / 1000);
    loaded.stored = { ...loaded.stored, clockMark: core.mark };
  };
  const heartbeats = createHeartbeatPacer({
    timers,
    now: core.now,
    random: () => core.random(),
    mayRun: () => !core.stopped && usableStates.has(core.state),
    send: async () => (core.loaded === undefined || core.stopped ? undefined : heartbeatCall(core.verification.device, core.loaded.session)),
    queue: (task) => core.exclusive(task),
    // No seat any more, or the heartbeat was refused: the next validation says why (a kill order, a refusal).
    onNoSeat: () => scheduleValidation(0),
    onError: core.emitError,
  });

  /** Applies the offline standing of what is loaded (after start, a failed validation, or a standing change). */
  const applyStanding = (cause?: unknown) => {
    if (core.loaded === undefined) return;
    const { state: next, ...detail } = judgeRecord(core.loaded, core.judgedNow(), core.clockSetBack(), cause);
    core.setState(next, { ...detail, ...(next === 'locked' && cause !== undefined ? { error: cause } : {}) });
    armStanding();
  };
  /** Wakes up when the grace window ends or the license expires, even if no validation is due by then. */
  const armStanding = () => {
    const ends = core.loaded === undefined || core.stopped ? undefined : standingEnds(core.loaded, core.judgedNow());
    if (ends === undefined) return timers.cancel('standing');
    timers.set('standing', (ends - core.judgedNow()) * 1000, () =>
      core.exclusive(async () => {
        const loaded = core.loaded;
        if (loaded === undefined || core.stopped || standingAt(loaded.credential, loaded.ticket, core.judgedNow()).state !== 'locked') return armStanding();
        applyStanding();
        scheduleValidation(0);
      }),
    );
  };
  const usableNow = (): LoadedLicense | undefined => {
    const loaded = core.loaded;
    if (loaded === undefined || !usableStates.has(core.state)) return undefined;
    return standingAt(loaded.credential, loaded.ticket, core.judgedNow()).state === 'locked' ? undefined : loaded;
  };

  const restore = async (): Promise<LicenseState> => {
    // A second start begins from nothing: no timers, no license of the previous run.
    timers.cancel();
    core.loaded = core.unverified = undefined;
    let bytes: Uint8Array | undefined;
    try {
      bytes = await options.storage.load();
    } catch (error) {
      // An unreadable record (damaged, another key, a locked keychain) is not a license. It is kept: a
      // keychain locked for a moment must not cost the user their activation.
      core.emitError(error);
      core.setState('unlicensed', { reason: 'storage_unreadable', error });
      return core.state;
    }
    const stored = bytes === undefined ? undefined : decodeStoredLicense(bytes);
    if (bytes !== undefined && stored === undefined) core.emitError(new Error('The stored license record could not be read; the device starts unlicensed.'));
    if (stored === undefined || stored.productId !== options.productId || stored.credential === undefined) {
      core.setState('unlicensed', stored?.pendingOfflineNonce === undefined ? {} : { reason: 'offline_answer_pending' });
      return core.state;
    }
    core.mark = stored.clockMark;
    core.unverified = { ...stored, credential: stored.credential };
    core.failures = 0;
    return verifyRestored(true);
  };

  /** Verifies the restored record; a failure another try may cure (no network for the feed) is retried. */
  const verifyRestored = async (rebuild: boolean): Promise<LicenseState> => {
    const stored = core.unverified;
    if (stored === undefined) return core.state;
    try {
      if (rebuild) core.verification = restoredVerification(stored);
      const { credential, ticket } = await core.verification.verifyStored(stored);
      // A record copied from another computer: the server would answer verdict 1, so it locks offline too.
      const moved = !constantTimeEqual(credential.fingerprint, await core.fingerprint());
      core.loaded = { stored, credential, ticket, session: sessionOf(options.productId, stored, credential), moved };
      core.unverified = undefined;
      core.failures = 0;
    } catch (error) {
      const failure = classifyFailure(error);
      if (failure.kind === 'refused') {
        // Tampered, revoked epoch, unpinned keys: fails closed.
        core.unverified = undefined;
        core.setState('locked', { reason: 'verification_failed', error });
        return core.state;
      }
      core.failures += 1;
      core.setState('locked', { reason: 'verification_unavailable', error });
      scheduleValidation(retryDelayMs(core.failures, core.random(), failure.retryAfterSeconds));
      return core.state;
    }
    startSchedule();
    return core.state;
  };
  /** The stored keyset and feed position; a keyset that no longer verifies (new pins, damage) is fetched anew. */
  const restoredVerification = (stored: StoredLicense): ClientVerification => {
    try {
      return createClientVerification(core.verificationOptions, stored);
    } catch (error) {
      core.emitError(error);
      const { keyset, ...withoutKeyset } = stored;
      void keyset;
      return createClientVerification(core.verificationOptions, withoutKeyset);
    }
  };

  const startSchedule = () => {
    const loaded = core.loaded;
    if (loaded === undefined) return;
    applyStanding();
    if (core.state === 'active') {
      const basis = loaded.ticket ?? loaded.credential;
      scheduleValidation(refreshDelayMs(basis.refreshAfter, core.judgedNow(), core.random()));
      heartbeats.first();
    } else scheduleValidation(0);
  };

  /** A kill order: the app is told first; then the record goes (or, if storage will not delete it, is emptied). */
  const obeyKill = async (current: LoadedLicense, order: KillOrder) => {
    timers.cancel();
    core.loaded = undefined;
    core.setState('revoked', { reason: `kill_${order.reason}`, killOrder: order });
    events.emit('kill', order);
    try {
      await options.storage.clear();
    } catch (error) {
      core.emitError(error);
      await options.storage.save(encodeStoredLicense(tombstoneRecord(current.stored))).catch(core.emitError);
    }
  };

  let upgradeStreak = 0;
  const acceptTicket = async (current: LoadedLicense, ticket: ValidationTicket, envelope: Uint8Array, sentUsage: boolean) => {
    current.ticket = ticket;
    current.moved = false;
    current.stored = recordAfterTicket(current.stored, ticket, envelope, sentUsage, core.now());
    core.mark = current.stored.clockMark;
    heartbeats.learnServerTime(ticket.serverTime);
    if (ticket.verdict === 1) core.setState('locked', { reason: 'needs_reactivation' });
    else core.setState('active', ticketNotice(ticket));
    // refresh_now asks for one validation soon, not a loop: a minute, doubling while it repeats.
    upgradeStreak = ticket.refreshNow === true ? upgradeStreak + 1 : 0;
    const regular = refreshDelayMs(ticket.refreshAfter, ticket.serverTime, core.random());
    scheduleValidation(upgradeStreak > 0 ? upgradeRefreshDelayMs(upgradeStreak, regular) : regular);
    armStanding();
    heartbeats.ensure();
    await core.persistOrReport();
  };

  const validationFailed = async (current: LoadedLicense, error: unknown) => {
    const failure = classifyFailure(error);
    if (failure.kind === 'refused') {
      timers.cancel();
      // Remembered in the record: a restart must not undo a refusal (a suspended license, an erased machine).
      current.stored = { ...current.stored, refusedAt: core.now() };
      core.setState('locked', { reason: 'refused', error });
      scheduleValidation(refusedRetryMs);
      await core.persistOrReport();
      return;
    }
    core.failures += 1;
    // The time the device reached while the server was away raises the mark (best effort).
    const setBack = core.clockSetBack();
    const raised = !setBack && core.now() > current.stored.clockMark;
    if (raised) current.stored = { ...current.stored, clockMark: core.now() };
    applyStanding(error);
    scheduleValidation(retryDelayMs(core.failures, core.random(), failure.retryAfterSeconds));
    // While set back, the mark moved with the timer (chargeElapsed): kept, so a restart does not undo it.
    if (raised || setBack) await core.persistOrReport();
  };

  const validateNow = (): Promise<LicenseState> =>
    core.exclusive(async () => {
      if (core.stopped) return core.state;
      if (core.loaded === undefined) return verifyRestored(false);
      const current = core.loaded;
      const outgoing = outgoingUsage(current.stored.usage, current.stored.consentVersion, current.ticket);
      // What is counted while the request is away starts the next window; it rejoins the sent one on failure.
      if (outgoing !== undefined) current.stored = { ...current.stored, usage: emptyUsage(outgoing.sent.windowStart) };
      let result: Awaited<ReturnType<typeof validateCall>>;
      try {
        result = await validateCall(core.verification.device, {
          ...current.session,
          ...(outgoing === undefined ? {} : { telemetry: outgoing.block }),
          fingerprint: await core.fingerprint(),
          clientInfo: options.clientInfo,
          knownRevocationEpoch: current.stored.knownRevocationEpoch,
          knownSecurityFloor: current.stored.knownSecurityFloor,
        });
      } catch (error) {
        if (outgoing !== undefined) current.stored = withUsage(current.stored, mergeUsage(outgoing.sent, current.stored.usage));
        await validationFailed(current, error);
        return core.state;
      }
      core.failures = 0;
      if (result.kind === 'kill') await obeyKill(current, result.order);
      else await acceptTicket(current, result.ticket, result.envelope, outgoing !== undefined);
      return core.state;
    });

  return { heartbeats, restore, validateNow, startSchedule, armStanding, scheduleValidation, usableNow };
}
