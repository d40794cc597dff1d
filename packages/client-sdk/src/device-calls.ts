import { hexEncode, systemClock, unixSeconds, type Clock, type Signer } from '@tollgate/core';
import { constantTimeEqual, randomBytes } from '@tollgate/core/crypto';
import { licenseWireLengths, type MachineCredential } from '@tollgate/core/license';
import type { ArtifactVerifier } from './artifact-verifier';
import { ResponseMismatchError } from './errors';
import type { LicenseServerOptions, PostExtras } from './protocol-http';

/**
 * Where the device calls go and how their answers are checked. The verifier is required: every signed
 * answer is verified against the pinned roots **and** the revocation feed before a call returns it.
 *
 * @example
 * ```ts
 * import { createArtifactVerifier, createKeysetFetcher, createRevocationFollower, type DeviceCallOptions } from '@tollgate/client-sdk';
 * const baseUrl = 'https://license.example.com';
 * const keysets = createKeysetFetcher({ baseUrl, pinnedRoots: [ROOT_CURRENT_HEX, ROOT_NEXT_HEX] });
 * const revocations = createRevocationFollower({ baseUrl, keys: () => keysets.get(), state: loadSavedState() });
 * const options: DeviceCallOptions = { baseUrl, verifier: createArtifactVerifier({ keysets, revocations, productId: 'acme-editor' }) };
 * ```
 */
export interface DeviceCallOptions extends LicenseServerOptions {
  /** Verifies every signed answer (pinned roots + revocation feed): build it with `createArtifactVerifier`. */
  readonly verifier: ArtifactVerifier;
  /** Gives `client_time` (informational for the server); the system clock by default. */
  readonly clock?: Clock;
  /**
   * How many times `activate`, `requestOffline` and `deactivate` resend the **identical** signed request
   * (same nonce, same `Idempotency-Key`) after a network failure: 1 by default. The server answers such a
   * resend with the byte-identical response, so an answer lost on the way costs nothing.
   */
  readonly networkResends?: number;
}

/**
 * The license and machine a device's later requests name: the `licenseId` and `machineId` of its
 * verified machine credential (pass the credential itself).
 *
 * @example
 * ```ts
 * import type { DeviceSeat } from '@tollgate/client-sdk';
 * const seat: DeviceSeat = activation.credential; // { licenseId, machineId, … }
 * ```
 */
export type DeviceSeat = Pick<MachineCredential, 'licenseId' | 'machineId'>;

/**
 * What every request after activation carries: the product, the seat, and the device key registered at
 * activation (an Ed25519 `Signer`: keep the private key in the platform's secure storage, or in a
 * non-extractable key; the SDK only calls `sign`).
 *
 * @example
 * ```ts
 * import { createNobleEd25519Signer } from '@tollgate/core';
 * import type { DeviceSession } from '@tollgate/client-sdk';
 * const session: DeviceSession = { productId: 'acme-editor', seat: activation.credential, deviceKey: createNobleEd25519Signer({ privateKey: seed, kid: 'device' }) };
 * ```
 */
export interface DeviceSession {
  readonly productId: string;
  readonly seat: DeviceSeat;
  readonly deviceKey: Signer;
}

const idempotencyKeyPattern = /^[\x21-\x7e]{1,128}$/;

/**
 * A fresh `Idempotency-Key`: 32 hex digits from the platform CSPRNG.
 *
 * @returns The key.
 * @example
 * ```ts
 * const key = newIdempotencyKey(); // e.g. '9f1c…' (32 characters)
 * ```
 * @internal
 */
export function newIdempotencyKey(): string {
  return hexEncode(randomBytes(16));
}

/** The given key (checked against the server's rule before anything is sent) or a fresh one. @internal */
export function idempotencyKeyOf(given: string | undefined): string {
  if (given === undefined) return newIdempotencyKey();
  if (!idempotencyKeyPattern.test(given)) throw new TypeError('an Idempotency-Key is 1 to 128 visible ASCII characters');
  return given;
}

/** The POST extras of a route under an `Idempotency-Key`. @internal */
export function idempotentPost(options: DeviceCallOptions, idempotencyKey: string): PostExtras {
  const resends = options.networkResends ?? 1;
  if (!Number.isSafeInteger(resends) || resends < 0 || resends > 10) throw new TypeError('networkResends is an integer from 0 to 10');
  return { headers: { 'idempotency-key': idempotencyKey }, resends };
}

/** A fresh request nonce: 32 bytes from the platform CSPRNG, never reused. @internal */
export function freshNonce(): Uint8Array {
  return randomBytes(licenseWireLengths.nonce);
}

/** `client_time` of a request: this device's clock, which the server never trusts. @internal */
export function clientTime(options: Pick<DeviceCallOptions, 'clock'>): number {
  return unixSeconds(options.clock ?? systemClock);
}

/** Refuses an answer whose `nonce_echo` is not the nonce sent. @internal */
export function expectNonceEcho(what: string, echo: Uint8Array, nonce: Uint8Array): void {
  if (!constantTimeEqual(echo, nonce)) {
    throw new ResponseMismatchError('nonce_mismatch', `The ${what} echoes another nonce than this request's: it answers another request.`, { details: { what } });
  }
}

/** Refuses a ticket or kill order for another license or machine than the request named. @internal */
export function expectSeat(what: string, answer: DeviceSeat, seat: DeviceSeat): void {
  if (!constantTimeEqual(answer.licenseId, seat.licenseId) || !constantTimeEqual(answer.machineId, seat.machineId)) {
    throw new ResponseMismatchError('seat_mismatch', `The ${what} names another license or machine than this request.`, { details: { what } });
  }
}

/** Refuses a machine credential bound to another device key or fingerprint than this device's. @internal */
export function expectDevice(credential: MachineCredential, deviceKey: Signer, fingerprint: Uint8Array): void {
  if (!constantTimeEqual(credential.devicePublicKey, deviceKey.publicKey) || !constantTimeEqual(credential.fingerprint, fingerprint)) {
    throw new ResponseMismatchError('device_mismatch', 'The machine credential names another device key or fingerprint than this device.');
  }
}
