import type { KillOrder } from '@tollgate/core/license';
import { activate as activateCall } from '../activation-calls';
import { LicenseRequestError } from '../errors';
import { openAsset, unwrapAssetKey, type AssetKeyArtifact } from '../asset-keys';
import { buildOfflineRequest, verifyOfflineAnswer } from '../offline-relay';
import { deactivate as deactivateCall } from '../session-calls';
import { createClientCore } from './client-core';
import { createClientVerification } from './client-verification';
import { activatedRecord, deviceKeys, importedOfflineRecord, pendingOfflineRecord, sessionOf } from './device-records';
import { refreshDelayMs, retryDelayMs, type LicenseState } from './license-state';
import type { LicenseClient, LicenseClientOptions } from './license-client-types';
import { decodeStoredLicense, encodeStoredLicense } from './stored-license';
import { emptyUsage, mayCountUsage, withFeatureHit, withSession, withUsage, type UsageWindow } from './usage-telemetry';
import { createValidationCycle } from './validation-cycle';

/**
 * Creates the license client of a desktop app: the part of licensing the app never has to think about.
 * `start()` restores the stored credential and verifies it offline against the pinned roots; from then
 * on the client validates when the ticket says (`refresh_after`, jittered), sends heartbeats when the
 * server asks (`next_after`, in server time), retries an unreachable server with backoff (honouring
 * `Retry-After` up to an hour), and moves between states, telling the app through `on('state', …)`:
 * - network errors, 5xx and 429 keep the last ticket usable for its grace window (`grace`), then `locked`;
 * - a refusal by the server, or an answer that fails verification, fails closed at once (`locked`), and
 *   stays locked across restarts until a validation succeeds;
 * - a kill order wipes the stored credential and keys (`revoked`, with `on('kill', …)`);
 * - a clock set back beyond the tolerance moves to `needs_revalidation` and validates at once; grace
 *   is judged at the highest time seen, moved on by the (monotonic) timers, so setting it back buys no time.
 * The server's answer is acted on before it is stored: a storage failure reaches `on('error', …)` and
 * never undoes a lock or a kill order. Entitlements are judged at every call, not only when a timer fires.
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
  const core = createClientCore(options);
  const cycle = createValidationCycle(core);
  const { clock, events, timers, emitError } = core;
  const allowedFeatures = new Set(options.telemetry?.allowedFeatures ?? []);

  /** Counts usage only with consent and a tier that permits it; `save` stores it at once (a session end), else with the next validation. */
  const updateUsage = (change: (usage: UsageWindow) => UsageWindow, save: boolean) => {
    const loaded = core.loaded;
    if (loaded === undefined || !mayCountUsage(loaded.stored.consentVersion, loaded.ticket)) return;
    loaded.stored = { ...loaded.stored, usage: change(loaded.stored.usage ?? emptyUsage(loaded.ticket?.telemetryWindow ?? 0)) };
    if (save) void core.exclusive(core.persist).catch(emitError);
  };

  /** A failed activation gives back what the device had: its license, verification and timers. */
  const undoActivation = (before: Pick<typeof core, 'state' | 'verification' | 'loaded' | 'unverified'>, error: unknown) => {
    core.verification = before.verification;
    core.loaded = before.loaded;
    core.unverified = before.unverified;
    const had = core.loaded !== undefined || core.unverified !== undefined;
    core.setState(had ? before.state : 'unlicensed', { reason: 'activation_failed', error });
    if (core.loaded !== undefined) cycle.startSchedule();
    else if (core.unverified !== undefined) cycle.scheduleValidation(retryDelayMs(Math.max(1, core.failures), core.random(), undefined));
  };

  const client: LicenseClient = {
    get state() {
      return core.state;
    },
    on: events.on,
    start: () =>
      core.exclusive(async () => {
        core.stopped = false;
        return cycle.restore();
      }),
    activate: (credential) =>
      core.exclusive(async () => {
        core.stopped = false;
        const before = { state: core.state, verification: core.verification, loaded: core.loaded, unverified: core.unverified };
        timers.cancel();
        core.setState('activating');
        const keys = deviceKeys();
        let activation: Awaited<ReturnType<typeof activateCall>>;
        try {
          core.verification = createClientVerification(core.verificationOptions, undefined);
          const input = { productId: options.productId, credential, deviceKey: keys.signer, kemPublicKey: keys.kemPublicKey, fingerprint: await core.fingerprint(), clientInfo: options.clientInfo };
          activation = await activateCall(core.verification.device, input);
        } catch (error) {
          undoActivation(before, error);
          throw error;
        }
        // The server gave this device a seat: the license is live now, and stored after (a failing save only reports).
        const issued = activation.credential;
        const stored = activatedRecord(options.productId, keys, activation.envelope, issued, core.verification.revocations.state(), core.now());
        core.loaded = { stored, credential: issued, ticket: undefined, session: sessionOf(options.productId, stored, issued), moved: false };
        core.unverified = undefined;
        core.mark = stored.clockMark;
        core.failures = 0;
        cycle.heartbeats.learnServerTime(issued.issuedAt);
        core.setState('active');
        cycle.scheduleValidation(refreshDelayMs(issued.refreshAfter, issued.issuedAt, core.random()));
        cycle.heartbeats.first();
        cycle.armStanding();
        await core.persistOrReport();
        return core.state;
      }),
    createOfflineRequest: (licenseKey) =>
      core.exclusive(async () => {
        // Building a request replaces the record: never throw away a license this device holds.
        const existing = await options.storage.load().then((bytes) => (bytes === undefined ? undefined : decodeStoredLicense(bytes)), () => undefined);
        if (core.loaded !== undefined || core.unverified !== undefined || (existing?.credential !== undefined && existing.productId === options.productId)) {
          throw new Error('This device holds a license: deactivate it before building an offline request.');
        }
        const keys = deviceKeys();
        const input = { productId: options.productId, credential: { licenseKey }, deviceKey: keys.signer, kemPublicKey: keys.kemPublicKey, fingerprint: await core.fingerprint(), clientInfo: options.clientInfo };
        const { request, nonce } = await buildOfflineRequest(input, { clock });
        // Kept before the request leaves the device: the answer can only be imported with these keys.
        await options.storage.save(encodeStoredLicense(pendingOfflineRecord(options.productId, keys, nonce, core.now())));
        timers.cancel();
        core.setState('unlicensed', { reason: 'offline_answer_pending' });
        return request;
      }),
    importOfflineAnswer: (answerBytes) =>
      core.exclusive(async () => {
        const bytes = await options.storage.load();
        const pending = bytes === undefined ? undefined : decodeStoredLicense(bytes);
        if (pending?.pendingOfflineNonce === undefined) throw new Error('No offline request is waiting for an answer on this device: call createOfflineRequest first.');
        const check = { pinnedRoots: options.pinnedRoots, productId: options.productId, nonce: pending.pendingOfflineNonce, devicePublicKey: deviceKeys(pending).signer.publicKey, fingerprint: await core.fingerprint(), clock };
        const verified = verifyOfflineAnswer(answerBytes, check);
        const { credential } = verified;
        const stored = importedOfflineRecord(pending, verified, core.now());
        await options.storage.save(encodeStoredLicense(stored));
        core.mark = stored.clockMark;
        core.verification = createClientVerification(core.verificationOptions, stored);
        core.loaded = { stored, credential, ticket: undefined, session: sessionOf(options.productId, stored, credential), moved: false };
        core.unverified = undefined;
        cycle.startSchedule();
        return core.state;
      }),
    validateNow: cycle.validateNow,
    deactivate: () =>
      core.exclusive(async () => {
        if (core.loaded !== undefined) {
          try {
            await deactivateCall(core.verification.device, core.loaded.session);
          } catch (error) {
            // 1000/401: the server no longer knows this device (its machine was erased, or replaced by another
            // install). There is no seat left to free, and the user must still be able to drop the record.
            if (!(error instanceof LicenseRequestError && error.code === 1000 && error.status === 401)) throw error;
            emitError(error);
          }
        }
        timers.cancel();
        core.loaded = core.unverified = undefined;
        await options.storage.clear();
        core.setState('unlicensed', { reason: 'deactivated' });
      }),
    setConsent: (version) =>
      core.exclusive(async () => {
        if (!Number.isSafeInteger(version) || version < 0) throw new TypeError('a consent version is a non-negative integer');
        const loaded = core.loaded;
        if (loaded === undefined) throw new Error('Consent is recorded with the license: activate first.');
        // Withdrawn consent drops what was counted; a new window starts with the next count.
        loaded.stored = withUsage({ ...loaded.stored, consentVersion: version }, version > 0 ? loaded.stored.usage : undefined);
        await core.persist();
      }),
    startSession: () => {
      const startedAt = clock.now();
      return () => updateUsage((usage) => withSession(usage, clock.now() - startedAt, core.now()), true);
    },
    recordFeature: (featureId) => updateUsage((usage) => withFeatureHit(usage, featureId, allowedFeatures, core.now()), false),
    openSealedAsset: (sealed, featureId) => {
      const current = cycle.usableNow();
      if (current === undefined) throw new Error(`The license is ${core.state === 'active' ? 'no longer valid' : core.state}: assets stay sealed.`);
      if (!client.hasFeature(featureId)) throw new Error(`The license does not include ${featureId}: its assets stay sealed.`);
      // The newest answer decides: once a ticket exists, the credential's (older) keys are never used.
      const { ticket, credential, stored } = current;
      const artifact: AssetKeyArtifact = ticket !== undefined ? { kind: 'validation-ticket', productId: options.productId, payload: ticket } : { kind: 'machine-credential', productId: options.productId, payload: credential };
      return openAsset(sealed, unwrapAssetKey(artifact, featureId, stored.kemPrivateKey), { feature: featureId, productId: options.productId });
    },
    hasFeature: (featureId) => client.entitlements()?.features.includes(featureId) ?? false,
    entitlements: () => {
      const current = cycle.usableNow();
      return current === undefined ? undefined : (current.ticket?.entitlements ?? current.credential.entitlements);
    },
    stop: async () => {
      core.stopped = true;
      timers.cancel();
      await core.idle();
    },
  };
  return client;
}

export type { LicenseState, KillOrder };
