import type { Clock } from '@tollgate/core';
import { verifyEpochCertificate, type EpochKeySource, type MachineCredential, type VerifiedEpoch, type ValidationTicket } from '@tollgate/core/license';
import { createArtifactVerifier } from '../artifact-verifier';
import { verifyInEpochWindow } from '../epoch-window';
import { expectSeat, type DeviceCallOptions } from '../device-calls';
import type { FetchFunction } from '../http';
import { createKeysetFetcher } from '../keyset-fetcher';
import { createRevocationFollower, type RevocationFollower } from '../revocation-follower';
import { verifyWithChecks, type SdkSignatureVerifier } from '../signature-checks';
import { decodePins, type PinnedRoot } from '../verify';
import type { StoredLicense } from './stored-license';

/** Where a license client's verification comes from. */
export interface ClientVerificationOptions {
  readonly baseUrl: string;
  readonly productId: string;
  readonly pinnedRoots: readonly PinnedRoot[];
  /** The clock artifacts are judged at (the license client's guarded clock). */
  readonly clock: Clock;
  /**
   * The device's own clock, stamped as `client_time` on requests (so the server sees a clock set back);
   * `clock` when absent. A fresh answer's signing epoch may be valid at it instead of at `clock`, so a
   * guarded clock whose mark was once set far ahead does not make every epoch look expired.
   */
  readonly requestClock?: Clock;
  readonly fetch?: FetchFunction;
  /** The Ed25519 check of keysets and artifacts (the runtime's fastest by default). */
  readonly verify?: SdkSignatureVerifier;
}

/** The verification a license client runs with, rebuilt from the stored record at every start. */
export interface ClientVerification {
  /** Options of the device calls: every answer verifies against the pins and the revocation feed. */
  readonly device: DeviceCallOptions;
  readonly revocations: RevocationFollower;
  /** The last keyset envelope that verified (fetched in this run, or restored), to store. */
  keysetBytes(): Uint8Array | undefined;
  /**
   * Verifies the stored credential and ticket: with the stored keyset and revocation state (the server
   * is asked only when the feed is due, and its absence is tolerated while the feed is recent enough), or,
   * for a device activated offline that never reached the server, with the certificates of its offline
   * answer checked against the pins. Each signing epoch must have been valid at the artifact's own signed
   * time (not now: an epoch that has expired since still vouches for what it signed, unless revoked), and
   * the stored ticket must name the credential's license and machine.
   */
  verifyStored(stored: StoredLicense & { credential: Uint8Array }): Promise<{ credential: MachineCredential; ticket: ValidationTicket | undefined }>;
}

/**
 * Builds a client's verification from what was stored (nothing, on a first start).
 *
 * @param options - Server, product, pins, clock, fetch.
 * @param stored - The stored record, if any.
 * @returns The verification.
 * @example
 * ```ts
 * const verification = createClientVerification({ baseUrl, productId, pinnedRoots, clock }, stored);
 * await activate(verification.device, input);
 * ```
 */
export function createClientVerification(options: ClientVerificationOptions, stored: StoredLicense | undefined): ClientVerification {
  const fetchOption = options.fetch === undefined ? {} : { fetch: options.fetch };
  const verifyOption = options.verify === undefined ? {} : { verify: options.verify };
  let keysetBytes = stored?.keyset;
  const keysets = createKeysetFetcher({
    baseUrl: options.baseUrl,
    pinnedRoots: options.pinnedRoots,
    clock: options.clock,
    ...fetchOption,
    ...verifyOption,
    ...(stored?.keyset === undefined ? {} : { initial: stored.keyset }),
    onKeyset: (bytes) => {
      keysetBytes = bytes;
    },
  });
  const revocations = createRevocationFollower({ baseUrl: options.baseUrl, keys: () => keysets.get(), clock: options.clock, ...fetchOption, ...(stored === undefined ? {} : { state: stored.revocation }) });
  const deviceClock = options.requestClock === undefined ? {} : { deviceClock: options.requestClock };
  const verifier = createArtifactVerifier({ keysets, revocations, productId: options.productId, clock: options.clock, ...deviceClock, ...verifyOption });
  const device: DeviceCallOptions = { baseUrl: options.baseUrl, verifier, clock: options.requestClock ?? options.clock, ...fetchOption };
  return {
    device,
    revocations,
    keysetBytes: () => keysetBytes,
    async verifyStored(record) {
      if (record.keyset === undefined && record.certificates !== undefined) {
        // Certificates chained to the pins whatever their expiry: the window is checked at the credential's issuedAt.
        const keys = certificateKeys(record.certificates, options.pinnedRoots, undefined);
        const check = { productId: options.productId, revokedEpochIds: record.revocation.revokedEpochIds, at: 'signed-time' as const };
        const verified = await verifyWithChecks(options.verify, (verify) => verifyInEpochWindow(record.credential, 'machine-credential', keys, { ...check, verify }));
        return { credential: verified.payload, ticket: undefined };
      }
      const credential = (await verifier.verify(record.credential, 'machine-credential', { stored: true })).payload;
      const ticket = record.ticket === undefined ? undefined : (await verifier.verify(record.ticket, 'validation-ticket', { stored: true })).payload;
      // A ticket grafted in from another license or machine (a richer tier) fails closed.
      if (ticket !== undefined) expectSeat('stored validation ticket', ticket, credential);
      return { credential, ticket };
    },
  };
}

/**
 * The epoch keys of certificates checked against the pins (an offline answer carries them).
 *
 * @param certificates - `epoch-certificate` envelopes.
 * @param pinnedRoots - The app's pinned roots.
 * @param now - Unix seconds the certificates must not have expired at; `undefined` checks only the chain
 *   to the pins (for a stored credential, whose epoch's window is checked at its own signed time).
 * @returns The key source.
 * @example
 * ```ts
 * const keys = certificateKeys(answer.certificates, pinnedRoots, unixSeconds(clock));
 * ```
 */
export function certificateKeys(certificates: readonly Uint8Array[], pinnedRoots: readonly PinnedRoot[], now: number | undefined): EpochKeySource {
  const pins = decodePins(pinnedRoots);
  const epochs = new Map<string, VerifiedEpoch>();
  for (const certificate of certificates) {
    const epoch = verifyEpochCertificate(certificate, { pinnedRoots: pins, ...(now === undefined ? {} : { at: now }) });
    epochs.set(epoch.epochIdHex, epoch);
  }
  return { epochs };
}
