import { systemClock, unixSeconds, type Clock, type KillOrder, type MachineCredential, type ValidationTicket } from '@tollgate/core';
import { activate as activateCall } from '../activation-calls';
import { openAsset, unwrapAssetKey, type AssetKeyArtifact } from '../asset-keys';
import type { DeviceSession } from '../device-calls';
import { buildOfflineRequest, verifyOfflineAnswer } from '../offline-relay';
import { deactivate as deactivateCall, heartbeat as heartbeatCall, validate as validateCall } from '../session-calls';
import { createClientEvents, type StateChange } from './client-events';
import { createClientVerification, type ClientVerification } from './client-verification';
import { activatedRecord, deviceKeys, importedOfflineRecord, pendingOfflineRecord, sessionOf } from './device-records';
import { classifyFailure, refreshDelayMs, retryDelayMs, standingAt, usableStates, type LicenseState } from './license-state';
import type { LicenseClient, LicenseClientOptions } from './license-client-types';
import { platformScheduler } from './scheduler';
import { emptyUsage, mayCountUsage, mergeUsage, outgoingUsage, usageAfterTicket, withFeatureHit, withSession, withUsage, type UsageWindow } from './usage-telemetry';
import { createClientTimers } from './client-timers';
import { decodeStoredLicense, encodeStoredLicense, type StoredLicense } from './stored-license';

interface Loaded {
  stored: StoredLicense;
  credential: MachineCredential;
  ticket: ValidationTicket | undefined;
  session: DeviceSession;
}

/**
 * Creates the license client of a desktop app: the part of licensing the app never has to think about.
 * `start()` restores the stored credential and verifies it offline against the pinned roots; from then
 * on the client validates when the ticket says (`refresh_after`, jittered), sends heartbeats when the
 * server asks (`next_after`), retries an unreachable server with backoff (honouring `Retry-After`), and
 * moves between states, telling the app through `on('state', …)`:
 * - network errors, 5xx and 429 keep the last ticket usable for its grace window (`grace`), then `locked`;
 * - a refusal by the server, or an answer that fails verification, fails closed at once (`locked`);
 * - a kill order wipes the stored credential and keys (`revoked`, with `on('kill', …)`);
 * - a clock set back beyond the tolerance moves to `needs_revalidation` and validates at once; grace is
 *   always judged at the highest time seen, so setting the clock back buys no time.
 *
 * Every call is async, no timer ever throws (failures reach `on('error', …)`), and calls never overlap.
 *
 * @param options - Server, product, pins, storage, fingerprint, client info; clock/fetch/scheduler for tests.
 * @returns The client (call `start()`).
 * @example
 * ```ts
 * import { createLicenseClient } from '@tollgate/client-sdk';
 * import { createFileStorage } from '@tollgate/client-sdk/node';
 * const license = createLicenseClient({ baseUrl, productId: 'acme-editor', pinnedRoots: [ROOT], storage: createFileStorage({ path, key }), fingerprint, clientInfo });
 * license.on('state', ({ state }) => render(state));
 * if ((await license.start()) === 'unlicensed') await license.activate({ licenseKey: await askForKey() });
 * if (license.hasFeature('export-pdf')) enableExport();
 * ```
 */
export function createLicenseClient(options: LicenseClientOptions): LicenseClient {
  const clock = options.clock ?? systemClock;
  const scheduler = options.scheduler ?? platformScheduler;
  const random = options.random ?? Math.random;
  const tolerance = options.clockToleranceSeconds ?? 300;
  // A start or activation is itself a contact: the first heartbeat goes a minute later, then as the server says.
  const firstHeartbeatSeconds = 60;
  const allowedFeatures = new Set(options.telemetry?.allowedFeatures ?? []);
  const events = createClientEvents();
  const fetchOption = options.fetch === undefined ? {} : { fetch: options.fetch };
  let state: LicenseState = 'unlicensed';
  let loaded: Loaded | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const timers = createClientTimers(scheduler, (error) => events.emit('error', error));
  let failures = 0;
  let stopped = false;

  // The clock guard's mark (unix seconds): the highest time seen. Verification and grace run on a clock
  // that never goes below it, so setting the device clock back neither revives an expired artifact nor
  // makes a current one look "not yet valid".
  let mark = 0;
  const guardedClock: Clock = { now: () => Math.max(clock.now(), mark * 1000) };
  const verificationOptions = { baseUrl: options.baseUrl, productId: options.productId, pinnedRoots: options.pinnedRoots, clock: guardedClock, requestClock: clock, ...fetchOption, ...(options.verify === undefined ? {} : { verify: options.verify }) };
  // The keyset and revocation feed are rebuilt from the stored record at every start.
  let verification: ClientVerification = createClientVerification(verificationOptions, undefined);

  const exclusive = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };
  const now = () => unixSeconds(clock);
  const fingerprint = async () => (typeof options.fingerprint === 'function' ? await options.fingerprint() : options.fingerprint);

  const setState = (next: LicenseState, detail: Omit<StateChange, 'state' | 'previous'> = {}) => {
    if (next === state && detail.reason === undefined) return;
    const previous = state;
    state = next;
    events.emit('state', { state: next, previous, ...detail });
  };

  const persist = async () => {
    if (loaded === undefined) return;
    const keyset = verification.keysetBytes();
    mark = loaded.stored.clockMark;
    loaded.stored = { ...loaded.stored, revocation: verification.revocations.state(), ...(keyset === undefined ? {} : { keyset }) };
    await options.storage.save(encodeStoredLicense(loaded.stored));
  };

  const wipe = async () => {
    timers.cancel();
    loaded = undefined;
    await options.storage.clear();
  };

  /** The highest time seen: grace is judged there, so a clock set back buys nothing. */
  const judgedNow = () => unixSeconds(guardedClock);
  const clockSetBack = () => now() < mark - tolerance;

  const scheduleValidation = (delayMs: number) => {
    if (!stopped) timers.validation(delayMs, () => validateNow());
  };
  const scheduleHeartbeat = (nextAfter: number) => {
    if (!stopped && usableStates.has(state)) timers.heartbeat(Math.min(Math.max(1, nextAfter - now()), 86_400) * 1000, () => exclusive(sendHeartbeat));
  };

  const sendHeartbeat = async () => {
    if (loaded === undefined || stopped) return;
    try {
      const answer = await heartbeatCall(verification.device, loaded.session);
      // No seat any more: the next validation says why (a kill order).
      if (!answer.ok) scheduleValidation(0);
      else scheduleHeartbeat(answer.nextAfter);
    } catch (error) {
      events.emit('error', error);
      scheduleHeartbeat(now() + Math.ceil(retryDelayMs(1, random(), undefined) / 1000));
    }
  };

  /** Applies the offline standing of what is stored (after start, or after a failed validation). */
  const applyStanding = (cause?: unknown) => {
    if (loaded === undefined) return;
    const standing = standingAt(loaded.credential, loaded.ticket, judgedNow());
    if (standing.state === 'locked') setState('locked', { reason: standing.reason, ...(cause === undefined ? {} : { error: cause }) });
    else if (clockSetBack()) setState('needs_revalidation', { reason: 'clock_set_back' });
    else if (standing.state === 'grace') setState(cause === undefined ? 'needs_revalidation' : 'grace', { reason: cause === undefined ? 'refresh_due' : 'server_unreachable', graceEndsAt: standing.graceEndsAt });
    else setState('active');
  };

  /** Counts usage only with consent and a tier that permits it; `save` stores it at once (a session end), else with the next validation. */
  const updateUsage = (change: (usage: UsageWindow) => UsageWindow, save: boolean) => {
    if (loaded === undefined || !mayCountUsage(loaded.stored.consentVersion, loaded.ticket)) return;
    loaded.stored = { ...loaded.stored, usage: change(loaded.stored.usage ?? emptyUsage(loaded.ticket?.telemetryWindow ?? 0)) };
    if (save) void exclusive(persist).catch((error: unknown) => events.emit('error', error));
  };

  const restore = async (): Promise<LicenseState> => {
    let bytes: Uint8Array | undefined;
    try {
      bytes = await options.storage.load();
    } catch (error) {
      // An unreadable record (damaged, another key, a locked keychain) is not a license. It is kept: a
      // keychain locked for a moment must not cost the user their activation.
      events.emit('error', error);
      setState('unlicensed', { reason: 'storage_unreadable', error });
      return state;
    }
    const stored = bytes === undefined ? undefined : decodeStoredLicense(bytes);
    if (bytes !== undefined && stored === undefined) events.emit('error', new Error('The stored license record could not be read; the device starts unlicensed.'));
    if (stored === undefined || stored.productId !== options.productId || stored.credential === undefined) {
      setState('unlicensed', stored?.pendingOfflineNonce === undefined ? {} : { reason: 'offline_answer_pending' });
      return state;
    }
    mark = stored.clockMark;
    verification = createClientVerification(verificationOptions, stored);
    try {
      const { credential, ticket } = await verification.verifyStored({ ...stored, credential: stored.credential });
      loaded = { stored, credential, ticket, session: sessionOf(options.productId, stored, credential) };
    } catch (error) {
      // A stored credential that no longer verifies (tampered, revoked epoch, feed too old) fails closed.
      loaded = undefined;
      setState('locked', { reason: 'verification_failed', error });
      return state;
    }
    startSchedule();
    return state;
  };

  /** Applies the stored standing and schedules what comes next (after a start or an offline import). */
  const startSchedule = () => {
    if (loaded === undefined) return;
    applyStanding();
    if (state === 'active') {
      const basis = loaded.ticket ?? loaded.credential;
      scheduleValidation(refreshDelayMs(basis.refreshAfter, judgedNow(), random()));
      scheduleHeartbeat(now() + firstHeartbeatSeconds);
    } else scheduleValidation(0);
  };

  const validateNow = (): Promise<LicenseState> =>
    exclusive(async () => {
      if (loaded === undefined || stopped) return state;
      const current = loaded;
      const outgoing = outgoingUsage(current.stored.usage, current.stored.consentVersion, current.ticket);
      // What is counted while the request is away starts the next window; it rejoins the sent one on failure.
      if (outgoing !== undefined) current.stored = { ...current.stored, usage: emptyUsage(outgoing.sent.windowStart) };
      try {
        const result = await validateCall(verification.device, {
          ...current.session,
          ...(outgoing === undefined ? {} : { telemetry: outgoing.block }),
          fingerprint: await fingerprint(),
          clientInfo: options.clientInfo,
          knownRevocationEpoch: current.stored.knownRevocationEpoch,
          knownSecurityFloor: current.stored.knownSecurityFloor,
        });
        failures = 0;
        if (result.kind === 'kill') {
          await wipe();
          setState('revoked', { reason: `kill_${result.order.reason}`, killOrder: result.order });
          events.emit('kill', result.order);
          return state;
        }
        const { ticket, envelope } = result;
        current.ticket = ticket;
        current.stored = {
          ...withUsage(current.stored, usageAfterTicket(current.stored.usage, current.stored.consentVersion, ticket, outgoing !== undefined)),
          ticket: envelope,
          // Server time is authoritative: a successful validation resets the mark to it (and to the device's time, if later).
          clockMark: Math.max(ticket.serverTime, now()),
          knownRevocationEpoch: Math.max(current.stored.knownRevocationEpoch, ticket.revocationEpoch),
          knownSecurityFloor: Math.max(current.stored.knownSecurityFloor, ticket.securityFloor),
        };
        await persist();
        if (ticket.verdict === 1) setState('locked', { reason: 'needs_reactivation' });
        else setState('active', ticket.verdict === 2 ? { reason: 'version_out_of_scope' } : {});
        scheduleValidation(ticket.refreshNow === true ? 0 : refreshDelayMs(ticket.refreshAfter, ticket.serverTime, random()));
        if (!timers.hasHeartbeat()) scheduleHeartbeat(now() + firstHeartbeatSeconds);
      } catch (error) {
        if (outgoing !== undefined) current.stored = withUsage(current.stored, mergeUsage(outgoing.sent, current.stored.usage));
        const failure = classifyFailure(error);
        if (failure.kind === 'refused') {
          timers.cancel();
          setState('locked', { reason: 'refused', error });
          return state;
        }
        failures += 1;
        // The time the device reached while the server was away raises the mark (best effort).
        if (!clockSetBack() && now() > current.stored.clockMark) {
          current.stored = { ...current.stored, clockMark: now() };
          await persist().catch((persistError: unknown) => events.emit('error', persistError));
        }
        applyStanding(error);
        scheduleValidation(retryDelayMs(failures, random(), failure.retryAfterSeconds));
      }
      return state;
    });

  const client: LicenseClient = {
    get state() {
      return state;
    },
    on: events.on,
    start: () =>
      exclusive(async () => {
        stopped = false;
        return restore();
      }),
    activate: (credential) =>
      exclusive(async () => {
        stopped = false;
        timers.cancel();
        setState('activating');
        const keys = deviceKeys();
        try {
          verification = createClientVerification(verificationOptions, undefined);
          const input = { productId: options.productId, credential, deviceKey: keys.signer, kemPublicKey: keys.kemPublicKey, fingerprint: await fingerprint(), clientInfo: options.clientInfo };
          const activation = await activateCall(verification.device, input);
          const stored = activatedRecord(options.productId, keys, activation.envelope, activation.credential, verification.revocations.state(), now());
          loaded = { stored, credential: activation.credential, ticket: undefined, session: sessionOf(options.productId, stored, activation.credential) };
          await persist();
        } catch (error) {
          setState(loaded === undefined ? 'unlicensed' : state, { reason: 'activation_failed', error });
          throw error;
        }
        setState('active');
        const basis = loaded.credential;
        scheduleValidation(refreshDelayMs(basis.refreshAfter, basis.issuedAt, random()));
        scheduleHeartbeat(now() + firstHeartbeatSeconds);
        return state;
      }),
    createOfflineRequest: (licenseKey) =>
      exclusive(async () => {
        const keys = deviceKeys();
        const input = { productId: options.productId, credential: { licenseKey }, deviceKey: keys.signer, kemPublicKey: keys.kemPublicKey, fingerprint: await fingerprint(), clientInfo: options.clientInfo };
        const { request, nonce } = await buildOfflineRequest(input, { clock });
        // Kept before the request leaves the device: the answer can only be imported with these keys.
        const pending = pendingOfflineRecord(options.productId, keys, nonce, now());
        timers.cancel();
        loaded = undefined;
        await options.storage.save(encodeStoredLicense(pending));
        return request;
      }),
    importOfflineAnswer: (answerBytes) =>
      exclusive(async () => {
        const bytes = await options.storage.load();
        const pending = bytes === undefined ? undefined : decodeStoredLicense(bytes);
        if (pending?.pendingOfflineNonce === undefined) throw new Error('No offline request is waiting for an answer on this device: call createOfflineRequest first.');
        const check = { pinnedRoots: options.pinnedRoots, productId: options.productId, nonce: pending.pendingOfflineNonce, devicePublicKey: deviceKeys(pending).signer.publicKey, fingerprint: await fingerprint(), clock };
        const verified = verifyOfflineAnswer(answerBytes, check);
        const { credential } = verified;
        const stored = importedOfflineRecord(pending, verified, now());
        await options.storage.save(encodeStoredLicense(stored));
        mark = stored.clockMark;
        verification = createClientVerification(verificationOptions, stored);
        loaded = { stored, credential, ticket: undefined, session: sessionOf(options.productId, stored, credential) };
        startSchedule();
        return state;
      }),
    validateNow,
    deactivate: () =>
      exclusive(async () => {
        if (loaded !== undefined) await deactivateCall(verification.device, loaded.session);
        await wipe();
        setState('unlicensed', { reason: 'deactivated' });
      }),
    setConsent: (version) =>
      exclusive(async () => {
        if (!Number.isSafeInteger(version) || version < 0) throw new TypeError('a consent version is a non-negative integer');
        if (loaded === undefined) throw new Error('Consent is recorded with the license: activate first.');
        // Withdrawn consent drops what was counted; a new window starts with the next count.
        loaded.stored = withUsage({ ...loaded.stored, consentVersion: version }, version > 0 ? loaded.stored.usage : undefined);
        await persist();
      }),
    startSession: () => {
      const startedAt = clock.now();
      return () => updateUsage((usage) => withSession(usage, clock.now() - startedAt, now()), true);
    },
    recordFeature: (featureId) => updateUsage((usage) => withFeatureHit(usage, featureId, allowedFeatures, now()), false),
    openSealedAsset: (sealed, featureId) => {
      if (loaded === undefined || !usableStates.has(state)) throw new Error(`The license is ${state}: assets stay sealed.`);
      const { ticket, credential, stored } = loaded;
      const artifact: AssetKeyArtifact = ticket?.assetKeys !== undefined ? { kind: 'validation-ticket', productId: options.productId, payload: ticket } : { kind: 'machine-credential', productId: options.productId, payload: credential };
      return openAsset(sealed, unwrapAssetKey(artifact, featureId, stored.kemPrivateKey), { feature: featureId, productId: options.productId });
    },
    hasFeature: (featureId) => client.entitlements()?.features.includes(featureId) ?? false,
    entitlements: () => {
      if (loaded === undefined || !usableStates.has(state)) return undefined;
      return loaded.ticket?.entitlements ?? loaded.credential.entitlements;
    },
    stop: async () => {
      stopped = true;
      timers.cancel();
      await queue;
    },
  };
  return client;
}


export type { LicenseState, KillOrder };
