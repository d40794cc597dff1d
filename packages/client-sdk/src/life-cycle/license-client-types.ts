import type { Clock } from '@tollgate/core';
import type { ClientInfo, Entitlements } from '@tollgate/core/license';
import type { SdkSignatureVerifier } from '../signature-checks';
import type { ActivationCredentialInput } from '../activation-calls';
import type { FetchFunction } from '../http';
import type { PinnedRoot } from '../verify';
import type { LicenseClientEvents } from './client-events';
import type { LicenseState } from './license-state';
import type { Scheduler } from './scheduler';
import type { LicenseStorage } from './storage';

/** Options of `createLicenseClient`. */
export interface LicenseClientOptions {
  /** The license server, e.g. `https://license.example.com`. */
  readonly baseUrl: string;
  readonly productId: string;
  /** Root public keys pinned in the app (current and next): nothing verifies without one of them. */
  readonly pinnedRoots: readonly PinnedRoot[];
  /** Where the credential, device keys and last ticket live between runs. */
  readonly storage: LicenseStorage;
  /** The device fingerprint (32 bytes), or how to compute it. */
  readonly fingerprint: Uint8Array | (() => Uint8Array | Promise<Uint8Array>);
  /** App version, SDK version, OS, architecture, build fingerprint or release id. */
  readonly clientInfo: ClientInfo;
  readonly clock?: Clock;
  readonly fetch?: FetchFunction;
  /** Timers (tests pass a manual one). */
  readonly scheduler?: Scheduler;
  /** Uniform numbers in [0, 1) for jitter; `Math.random` by default. */
  readonly random?: () => number;
  /** How far (seconds) the clock may fall behind the highest time seen before it counts as set back: 300. */
  readonly clockToleranceSeconds?: number;
  /**
   * The Ed25519 check of keysets and signed answers. By default the runtime's fastest: Node's native
   * Ed25519 (Node, Electron's main process), else WebCrypto's (current browsers), else noble (pure JS).
   */
  readonly verify?: SdkSignatureVerifier;
  /** Feature ids whose use the app may count (`recordFeature`); others are never counted. */
  readonly telemetry?: { readonly allowedFeatures: readonly string[] };
}

/** A license client: one per app, created at start-up. See `createLicenseClient`. */
export interface LicenseClient extends LicenseClientEvents {
  /** The current state (see `LicenseState`). */
  readonly state: LicenseState;
  /** Restores the stored license, verifies it offline, and schedules validation and heartbeats. */
  start(): Promise<LicenseState>;
  /**
   * Activates this device with a license key or account token, stores the credential, and starts the
   * schedule. On failure it rejects and the license the device had before (if any) keeps working.
   */
  activate(credential: ActivationCredentialInput): Promise<LicenseState>;
  /**
   * Air-gapped activation, step 1: builds and signs an offline activation request (new device keys, kept
   * in storage) to carry to a connected machine (`relayOfflineRequest` there). Nothing is sent. Rejects
   * while this device holds a license (deactivate it first): the request would replace it.
   */
  createOfflineRequest(licenseKey: string): Promise<Uint8Array>;
  /**
   * Step 2: imports the answer brought back, verified against the pinned roots alone (no network), and
   * starts the license from its credential. An answer past its `valid_until` is refused (RangeError).
   */
  importOfflineAnswer(answer: Uint8Array): Promise<LicenseState>;
  /** Validates now (also what the schedule does); never throws for network or server failures. */
  validateNow(): Promise<LicenseState>;
  /** Frees this device's seat on the server and wipes the stored license. */
  deactivate(): Promise<void>;
  /** Whether the license, as it stands now, entitles the app to `featureId`. */
  hasFeature(featureId: string): boolean;
  /** The current entitlements (the last ticket's, else the credential's), while the license is usable, judged at the time of the call. */
  entitlements(): Entitlements | undefined;
  /**
   * Records the privacy-notice version the user accepted (0 withdraws consent and drops everything
   * counted). Usage is counted, stored and sent with validations only while it is above 0; the server
   * also drops it unless the license's tier permits telemetry.
   */
  setConsent(version: number): Promise<void>;
  /** Starts a usage session; call the returned function when it ends (only its duration bucket is kept). */
  startSession(): () => void;
  /** Counts one use of an allow-listed feature (ignored without consent or when not allow-listed). */
  recordFeature(featureId: string): void;
  /**
   * Opens an asset sealed with the asset key of `featureId` (see `sealAsset` in `@tollgate/core`): the
   * key is unwrapped with this device's KEM key from the last ticket (the credential's keys serve only
   * until the first validation). Throws while the license is not usable, unless `hasFeature(featureId)`,
   * when no key for the feature reached this device, or when the asset was tampered with or sealed for
   * another feature or product.
   */
  openSealedAsset(sealed: Uint8Array, featureId: string): Uint8Array;
  /** Cancels every timer and waits for the call under way; the client can be started again. */
  stop(): Promise<void>;
}

