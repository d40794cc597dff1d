import { systemClock, unixSeconds, type Clock } from '@tollgate/core';
import { createClientEvents, type StateChange } from './client-events';
import { createClientTimers, type ClientTimers } from './client-timers';
import { createClientVerification, type ClientVerification, type ClientVerificationOptions } from './client-verification';
import type { LicenseState } from './license-state';
import type { LicenseClientOptions } from './license-client-types';
import type { LoadedLicense } from './record-standing';
import { platformScheduler } from './scheduler';
import { encodeStoredLicense, type StoredLicense } from './stored-license';

/** A stored record whose verification could not finish yet (feed or keyset out of reach). */
export type UnverifiedLicense = StoredLicense & { credential: Uint8Array };

/**
 * What the parts of a license client share: its options, clocks, events, timers, call queue, and the
 * mutable state (the license it runs on, the verification, the clock guard's mark).
 */
export interface ClientCore {
  readonly options: LicenseClientOptions;
  readonly clock: Clock;
  /** A clock that never goes below the mark: artifacts and grace are judged on it. */
  readonly guardedClock: Clock;
  readonly verificationOptions: ClientVerificationOptions;
  readonly events: ReturnType<typeof createClientEvents>;
  readonly timers: ClientTimers;
  random(): number;
  state: LicenseState;
  loaded: LoadedLicense | undefined;
  /** A restored record still to verify (retried on backoff). */
  unverified: UnverifiedLicense | undefined;
  verification: ClientVerification;
  /** The clock guard's mark (unix seconds): the highest time seen. */
  mark: number;
  /** Consecutive validations (or restore verifications) that did not get through. */
  failures: number;
  stopped: boolean;
  /** The device clock (unix seconds). */
  now(): number;
  /** The highest time seen: grace is judged there, so a clock set back buys nothing. */
  judgedNow(): number;
  clockSetBack(): boolean;
  fingerprint(): Promise<Uint8Array>;
  /** Runs `task` after every call before it: calls never overlap. */
  exclusive<T>(task: () => Promise<T>): Promise<T>;
  /** Resolves once the call under way (if any) is over. */
  idle(): Promise<unknown>;
  setState(next: LicenseState, detail?: Omit<StateChange, 'state' | 'previous'>): void;
  emitError(error: unknown): void;
  /** Stores the loaded record with the current feed position and keyset. */
  persist(): Promise<void>;
  /** `persist`, with a failure reported on `error` only: callers act on the server's answer first. */
  persistOrReport(): Promise<void>;
}

/**
 * The shared core of a license client, before anything is restored.
 *
 * @param options - The client's options.
 * @returns The core.
 * @example
 * ```ts
 * const core = createClientCore(options);
 * core.setState('unlicensed');
 * ```
 */
export function createClientCore(options: LicenseClientOptions): ClientCore {
  const clock = options.clock ?? systemClock;
  const events = createClientEvents();
  const emitError = (error: unknown) => events.emit('error', error);
  let queue: Promise<unknown> = Promise.resolve();
  const verificationOptions: ClientVerificationOptions = {
    baseUrl: options.baseUrl,
    productId: options.productId,
    pinnedRoots: options.pinnedRoots,
    // Verification and grace run on a clock that never goes below the mark, so setting the device clock
    // back neither revives an expired artifact nor makes a current one look "not yet valid".
    clock: { now: () => Math.max(clock.now(), core.mark * 1000) },
    requestClock: clock,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.verify === undefined ? {} : { verify: options.verify }),
  };
  const core: ClientCore = {
    options,
    clock,
    guardedClock: verificationOptions.clock,
    verificationOptions,
    events,
    timers: createClientTimers(options.scheduler ?? platformScheduler, emitError),
    random: options.random ?? Math.random,
    state: 'unlicensed',
    loaded: undefined,
    unverified: undefined,
    // The keyset and revocation feed are rebuilt from the stored record at every start.
    verification: createClientVerification(verificationOptions, undefined),
    mark: 0,
    failures: 0,
    stopped: false,
    now: () => unixSeconds(clock),
    judgedNow: () => unixSeconds(verificationOptions.clock),
    clockSetBack: () => core.now() < core.mark - (options.clockToleranceSeconds ?? 300),
    fingerprint: async () => (typeof options.fingerprint === 'function' ? await options.fingerprint() : options.fingerprint),
    exclusive(task) {
      const run = queue.then(task, task);
      queue = run.catch(() => undefined);
      return run;
    },
    idle: () => queue,
    setState(next, detail = {}) {
      if (next === core.state && detail.reason === undefined) return;
      const previous = core.state;
      core.state = next;
      events.emit('state', { state: next, previous, ...detail });
    },
    emitError,
    async persist() {
      const loaded = core.loaded;
      if (loaded === undefined) return;
      const keyset = core.verification.keysetBytes();
      core.mark = loaded.stored.clockMark;
      loaded.stored = { ...loaded.stored, revocation: core.verification.revocations.state(), ...(keyset === undefined ? {} : { keyset }) };
      await options.storage.save(encodeStoredLicense(loaded.stored));
    },
    persistOrReport: () => core.persist().catch(emitError),
  };
  return core;
}
