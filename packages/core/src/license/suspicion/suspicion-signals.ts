/**
 * What the client protocol reports as suspicious (docs/decisions.md "Suspicion alerts"):
 *
 * - `fingerprint_churn`: a license activated a fingerprint it had not seen in the scoring window while
 *   it already had as many distinct fingerprints in that window as seats (devices cycling through seats).
 * - `proof_failure`: a device request whose proof of possession does not verify (a forged or replayed-
 *   with-edits request).
 * - `nonce_replay`: a correctly signed request whose nonce was already used (a captured request played again).
 * - `clock_rollback`: a device reports a revocation epoch or security floor above the server's, or a
 *   client time far behind the server's (an attempt to roll back what the device knows).
 * - `offline_burst`: more offline activation requests for one license in the window than it has seats.
 */
export type SuspicionKind = 'fingerprint_churn' | 'proof_failure' | 'nonce_replay' | 'clock_rollback' | 'offline_burst';

/**
 * Points each kind adds to its product's score. A product's score is the sum over the scoring window,
 * capped at 100 (the top of the alert threshold's range, 1–100): e.g. a threshold of 50 alerts after
 * five forged proofs, or three clock rollbacks and one burst, within an hour.
 *
 * @example
 * ```ts
 * import { suspicionWeights } from '@tollgate/core/license';
 * suspicionWeights.proof_failure; // 10
 * ```
 */
export const suspicionWeights: Readonly<Record<SuspicionKind, number>> = Object.freeze({
  fingerprint_churn: 20,
  proof_failure: 10,
  nonce_replay: 10,
  clock_rollback: 15,
  offline_burst: 10,
});

/** Every {@link SuspicionKind}. */
export const suspicionKinds: readonly SuspicionKind[] = Object.freeze(Object.keys(suspicionWeights) as SuspicionKind[]);

/** The highest score (and threshold). */
export const maxSuspicionScore = 100;

/** Timing of scoring and alerting. */
export interface SuspicionSettings {
  /** Signals older than this no longer count, in ms. Default one hour. */
  readonly windowMs: number;
  /** After an alert, the product raises no other for this long, in ms. Default one hour. */
  readonly cooldownMs: number;
  /** Signals are kept this long (then purged), in ms. Default seven days. */
  readonly retentionMs: number;
}

/**
 * Default {@link SuspicionSettings}: one-hour window and cool-down, seven days of signals.
 *
 * @example
 * ```ts
 * import { defaultSuspicionSettings } from '@tollgate/core/license';
 * const settings = { ...defaultSuspicionSettings, cooldownMs: 15 * 60_000 };
 * ```
 */
export const defaultSuspicionSettings: SuspicionSettings = Object.freeze({
  windowMs: 3_600_000,
  cooldownMs: 3_600_000,
  retentionMs: 7 * 86_400_000,
});

/** One suspicious event, as the client protocol reports it. */
export interface SuspicionSignal {
  readonly productId: string;
  /** 32 lowercase hex digits, when the event is about a known license. */
  readonly licenseId?: string;
  readonly kind: SuspicionKind;
}

/** An alert raised by a signal, as queued for delivery (the webhook body's fields). */
export interface SuspicionAlert {
  /** `<product id>-<sequence>`: the same on every delivery attempt (the `Idempotency-Key`). */
  readonly alertId: string;
  readonly productId: string;
  readonly score: number;
  readonly threshold: number;
  readonly windowSeconds: number;
  /** Signals in the window by kind. */
  readonly signals: Readonly<Partial<Record<SuspicionKind, number>>>;
  /** The licenses with the most points in the window (at most ten), highest first. */
  readonly licenses: readonly { readonly licenseId: string; readonly score: number }[];
  /** Unix seconds when the threshold was crossed. */
  readonly raisedAt: number;
}

/** What {@link SuspicionLedger.record} did. */
export interface SuspicionRecordResult {
  /** The product's score after this signal (0–100). */
  readonly score: number;
  /** The alert this signal raised, if it crossed the threshold outside the cool-down. */
  readonly alert?: SuspicionAlert;
}

/** Records signals, scores products and raises alerts. */
export interface SuspicionLedger {
  /**
   * Stores the signal and, when the product has an alert webhook and its score reaches the threshold
   * outside the cool-down, queues one alert (in the same transaction). Of concurrent signals crossing
   * together, exactly one raises the alert.
   */
  record(signal: SuspicionSignal): Promise<SuspicionRecordResult>;
  /** Deletes signals older than the retention. Returns how many. */
  purge(): Promise<number>;
}
