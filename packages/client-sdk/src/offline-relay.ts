import { systemClock, unixSeconds, type Clock } from '@tollgate/core';
import { decodeCanonical } from '@tollgate/core/cbor';
import { constantTimeEqual } from '@tollgate/core/crypto';
import {
  inspectArtifact,
  signDeviceRequest,
  type EpochKeySource,
  type MachineCredential,
  type OfflineResponse,
} from '@tollgate/core/license';
import { buildActivationRequest, type OfflineRequestInput } from './activation-calls';
import { freshNonce, idempotencyKeyOf } from './device-calls';
import { ResponseMismatchError } from './errors';
import { inspectEnvelope, postLicenseMessage, type LicenseServerOptions } from './protocol-http';
import { certificateKeys } from './life-cycle/client-verification';
import { verifyArtifact, type PinnedRoot } from './verify';

/**
 * An offline activation request built on the air-gapped device: `request` is what travels (a file, a
 * QR code) to a connected machine; keep `nonce` to check the answer that comes back.
 */
export interface OfflineRequestPackage {
  readonly request: Uint8Array;
  readonly nonce: Uint8Array;
}

/**
 * Builds and signs an offline activation request on a device without network access. Nothing is sent:
 * carry `request` to a connected machine, which hands it to {@link relayOfflineRequest}, and bring the
 * answer back to {@link verifyOfflineAnswer}.
 *
 * @param input - Product, license key, device keys, fingerprint, client info.
 * @param options - The clock stamped as `client_time` (the system clock by default).
 * @returns The signed request and its nonce.
 * @example
 * ```ts
 * import { buildOfflineRequest } from '@tollgate/client-sdk';
 * const { request, nonce } = await buildOfflineRequest({ productId, credential: { licenseKey }, deviceKey, kemPublicKey, fingerprint, clientInfo });
 * await writeFile('activation-request.bin', request);
 * ```
 */
export async function buildOfflineRequest(input: OfflineRequestInput, options: { clock?: Clock } = {}): Promise<OfflineRequestPackage> {
  const nonce = freshNonce();
  const request = await signDeviceRequest('offline-request', buildActivationRequest(options, input, nonce), input.deviceKey);
  return { request, nonce };
}

/**
 * On the connected machine: posts a request built by {@link buildOfflineRequest} to the license server
 * as it is (it is already signed by the device) and returns the server's signed answer to carry back.
 * The answer is not verified here: the device does that, against its own pins.
 *
 * @param server - The license server (base URL, optional fetch).
 * @param request - The request bytes from the device.
 * @param options - The `Idempotency-Key` (reuse it to resend the same request safely) and network resends.
 * @returns The answer bytes.
 * @throws LicenseRequestError with the server's code (for example 1000 for a refused key).
 * @example
 * ```ts
 * import { relayOfflineRequest } from '@tollgate/client-sdk';
 * const answer = await relayOfflineRequest({ baseUrl: 'https://license.example.com' }, await readFile('activation-request.bin'));
 * await writeFile('activation-answer.bin', answer);
 * ```
 */
export async function relayOfflineRequest(server: LicenseServerOptions, request: Uint8Array, options: { idempotencyKey?: string; networkResends?: number } = {}): Promise<Uint8Array> {
  const resends = options.networkResends ?? 1;
  if (!Number.isSafeInteger(resends) || resends < 0 || resends > 10) throw new TypeError('networkResends is an integer from 0 to 10');
  // The same bytes and key on every resend: the server answers a resend with the stored answer.
  const headers = { 'idempotency-key': idempotencyKeyOf(options.idempotencyKey) };
  const { bytes } = await postLicenseMessage(server, '/v1/offline/request', request, 200, { headers, resends });
  // Checked here, on the connected machine: a proxy's page carried to the air-gapped device would only fail there.
  inspectEnvelope(bytes, 200);
  return bytes;
}

/** What {@link verifyOfflineAnswer} needs on the device. */
export interface OfflineAnswerCheck {
  readonly pinnedRoots: readonly PinnedRoot[];
  readonly productId: string;
  /** The request's nonce ({@link OfflineRequestPackage.nonce}). */
  readonly nonce: Uint8Array;
  /** The device's Ed25519 public key and fingerprint, which the credential must name. */
  readonly devicePublicKey: Uint8Array;
  readonly fingerprint: Uint8Array;
  readonly clock?: Clock;
}

/** A verified offline answer: the credential, and the epoch keys (from the answer's certificates) that verify it again later. */
export interface VerifiedOfflineAnswer {
  readonly answer: OfflineResponse;
  readonly credential: MachineCredential;
  readonly keys: EpochKeySource;
}

/**
 * On the device: verifies the answer brought back from the connected machine with nothing but the pinned
 * roots: the epoch certificates it carries against the pins, the answer and the credential inside it with
 * those epochs, the nonce echo, the device key and fingerprint, and `valid_until` (an answer imported
 * after it is refused: ask again).
 *
 * @param bytes - The answer from {@link relayOfflineRequest}.
 * @param check - Pins, product, the request's nonce, device key and fingerprint.
 * @returns The verified answer and credential.
 * @throws ArtifactError (signature, epoch, product), ResponseMismatchError (`nonce_mismatch`,
 *   `device_mismatch`), or RangeError when `valid_until` has passed.
 * @example
 * ```ts
 * import { verifyOfflineAnswer } from '@tollgate/client-sdk';
 * const { credential } = verifyOfflineAnswer(await readFile('activation-answer.bin'), { pinnedRoots, productId, nonce, devicePublicKey, fingerprint });
 * ```
 */
export function verifyOfflineAnswer(bytes: Uint8Array, check: OfflineAnswerCheck): VerifiedOfflineAnswer {
  const now = unixSeconds(check.clock ?? systemClock);
  // The certificates ride inside the signed payload: read them unverified to build the key source, then
  // verify the answer with it (a changed certificate list breaks the answer's signature).
  const payload = decodeCanonical(inspectArtifact(bytes).parts.payload);
  const certificates = payload instanceof Map ? payload.get(3) : undefined;
  const keys = certificateKeys(Array.isArray(certificates) ? certificates.filter((item): item is Uint8Array => item instanceof Uint8Array) : [], check.pinnedRoots, now);
  const options = { productId: check.productId, revokedEpochIds: [], now };
  const answer = verifyArtifact(bytes, 'offline-response', keys, options).payload;
  if (!constantTimeEqual(answer.nonceEcho, check.nonce)) throw new ResponseMismatchError('nonce_mismatch', 'This offline answer is for another request.');
  if (now > answer.validUntil) throw new RangeError(`This offline answer had to be imported by ${new Date(answer.validUntil * 1000).toISOString()}; build a new request.`);
  const credential = verifyArtifact(answer.credential, 'machine-credential', keys, options).payload;
  if (!constantTimeEqual(credential.devicePublicKey, check.devicePublicKey) || !constantTimeEqual(credential.fingerprint, check.fingerprint)) {
    throw new ResponseMismatchError('device_mismatch', 'This offline answer names another device.');
  }
  return { answer, credential, keys };
}
