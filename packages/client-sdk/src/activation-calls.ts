import type { Signer } from '@tollgate/core';
import { signDeviceRequest, type ClientInfo, type MachineCredential, type OfflineResponse, type UnsignedDeviceRequest } from '@tollgate/core/license';
import { clientTime, expectDevice, expectNonceEcho, freshNonce, idempotencyKeyOf, idempotentPost, type DeviceCallOptions } from './device-calls';
import { inspectEnvelope, postLicenseMessage } from './protocol-http';

/**
 * How a device proves it may take a seat: a license key, or the access token of an account session
 * (`login(…).accessToken`).
 *
 * @example
 * ```ts
 * import type { ActivationCredentialInput } from '@tollgate/client-sdk';
 * const byKey: ActivationCredentialInput = { licenseKey: 'ACME-7Q2K-…' };
 * const byAccount: ActivationCredentialInput = { accountToken: session.accessToken };
 * ```
 */
export type ActivationCredentialInput = { readonly licenseKey: string; readonly accountToken?: never } | { readonly accountToken: Uint8Array; readonly licenseKey?: never };

/**
 * What {@link activate} sends. The device key signs the request (proof of possession) and is the key
 * the credential will name: every later request of this machine is signed with it.
 *
 * @example
 * ```ts
 * import { createNobleEd25519Signer } from '@tollgate/core';
 * import type { ActivateInput } from '@tollgate/client-sdk';
 * const input: ActivateInput = {
 *   productId: 'acme-editor',
 *   credential: { licenseKey },
 *   deviceKey: createNobleEd25519Signer({ privateKey: deviceSeed, kid: 'device' }),
 *   kemPublicKey, // X25519 public key, 32 bytes
 *   fingerprint, // 32 bytes, stable per machine
 *   clientInfo: { appVersion: '2.4.1', sdkVersion: '0.1.0', os: 'linux', arch: 'x64' },
 * };
 * ```
 */
export interface ActivateInput {
  readonly productId: string;
  readonly credential: ActivationCredentialInput;
  /** The device's Ed25519 key (only `sign` and `publicKey` are used). */
  readonly deviceKey: Signer;
  /** The device's X25519 public key (32 bytes). */
  readonly kemPublicKey: Uint8Array;
  /** The device fingerprint (32 bytes): the same machine sends the same one, so a reinstall reuses its seat. */
  readonly fingerprint: Uint8Array;
  /** App version, SDK version, OS, architecture, and the build fingerprint or release id release gating checks. */
  readonly clientInfo: ClientInfo;
  /** Extra facts the policy asks for (at most 32 entries). */
  readonly deviceAttributes?: Readonly<Record<string, string>>;
  /**
   * `Idempotency-Key` of this call's request; a fresh one when absent. It covers this call only: each
   * call signs a fresh nonce, so the same key on another call is a conflict (1000, HTTP 409). Resends
   * after a network failure are the call's own business (`networkResends`).
   */
  readonly idempotencyKey?: string;
}

/**
 * A verified activation: the machine credential's payload, the envelope to store (it re-verifies on
 * the next start), and the `Idempotency-Key` used.
 *
 * @example
 * ```ts
 * import type { Activation } from '@tollgate/client-sdk';
 * const { credential, envelope }: Activation = await activate(options, input);
 * await store.put('credential', envelope);
 * ```
 */
export interface Activation {
  readonly credential: MachineCredential;
  readonly envelope: Uint8Array;
  readonly idempotencyKey: string;
}

/**
 * What {@link requestOffline} sends: an activation with a license key (offline activation never takes
 * an account token).
 *
 * @example
 * ```ts
 * import type { OfflineRequestInput } from '@tollgate/client-sdk';
 * const input: OfflineRequestInput = { ...activateInput, credential: { licenseKey } };
 * ```
 */
export interface OfflineRequestInput extends Omit<ActivateInput, 'credential'> {
  readonly credential: { readonly licenseKey: string };
}

/**
 * A verified offline answer: the signed `offline-response` (its `validUntil` is server time + 7 days:
 * import it before then), the machine credential inside it (verified too), and the envelope to carry to
 * the air-gapped device.
 *
 * @example
 * ```ts
 * import type { OfflineActivation } from '@tollgate/client-sdk';
 * const { answer, credential, envelope }: OfflineActivation = await requestOffline(options, input);
 * ```
 */
export interface OfflineActivation {
  readonly answer: OfflineResponse;
  readonly credential: MachineCredential;
  readonly envelope: Uint8Array;
  readonly idempotencyKey: string;
}

/**
 * The unsigned ActivationRequest {@link activate} sends (also the layout of an offline request): sign it
 * with `signDeviceRequest` to relay it without posting it here (an offline relay, a test).
 *
 * @param options - Only the clock is read (`client_time`).
 * @param input - Product, credential, device key, KEM key, fingerprint, client info, attributes.
 * @param nonce - A fresh 32-byte nonce.
 * @returns The request, without its proof.
 * @example
 * ```ts
 * import { buildActivationRequest } from '@tollgate/client-sdk';
 * import { randomBytes } from '@tollgate/core/crypto';
 * import { signDeviceRequest } from '@tollgate/core/license';
 * const body = await signDeviceRequest('offline-request', buildActivationRequest({}, input, randomBytes(32)), input.deviceKey);
 * ```
 */
export function buildActivationRequest(options: Pick<DeviceCallOptions, 'clock'>, input: ActivateInput, nonce: Uint8Array): UnsignedDeviceRequest<'activation-request'> {
  const { licenseKey, accountToken } = input.credential;
  return {
    protoVersion: 1,
    productId: input.productId,
    // Only the field given: the layout refuses both or neither before anything is sent.
    credential: { ...(licenseKey === undefined ? {} : { licenseKey }), ...(accountToken === undefined ? {} : { accountToken }) },
    fingerprint: input.fingerprint,
    devicePublicKey: input.deviceKey.publicKey,
    deviceKemKey: input.kemPublicKey,
    nonce,
    clientTime: clientTime(options),
    clientInfo: input.clientInfo,
    ...(input.deviceAttributes === undefined ? {} : { deviceAttributes: new Map(Object.entries(input.deviceAttributes)) }),
  };
}

/** Verifies a machine credential envelope and checks it answers this request from this device. */
async function verifiedCredential(options: DeviceCallOptions, input: ActivateInput, envelope: Uint8Array, nonce: Uint8Array): Promise<MachineCredential> {
  const { payload } = await options.verifier.verify(envelope, 'machine-credential', { productId: input.productId });
  expectNonceEcho('machine credential', payload.nonceEcho, nonce);
  expectDevice(payload, input.deviceKey, input.fingerprint);
  return payload;
}

/**
 * `POST /v1/activate`: takes a seat for this device. Builds the ActivationRequest with a fresh nonce,
 * signs it with the device key, sends it with an `Idempotency-Key`, and returns the machine credential
 * only after it verified against the pinned roots and the revocation feed, echoes this request's nonce,
 * and names this device's key and fingerprint.
 *
 * @param options - Server, fetch, artifact verifier, clock.
 * @param input - Product, credential, device key, KEM key, fingerprint, client info.
 * @returns The verified credential and its envelope.
 * @throws `LicenseRequestError` with the server's code: 1000 (bad or unusable credential), 1001 (no seat
 *   left, or the account's device limit), 1003 (account session expired: refresh or log in), 1005
 *   (`retryAfterSeconds`), 1007 (build not registered), 1008 (version out of scope), 1009 (release
 *   compromised), 5000; `network_error` (also after `requestTimeoutMs`); `unexpected_response` for a 200
 *   body that is no signed envelope (a proxy's page). `ArtifactError` or `ResponseMismatchError` when the answer does
 *   not verify or is bound to another request (fail closed); `RevocationFeedError` `stale` when the
 *   revocation feed cannot be synced; `ArtifactError` `invalid_payload` before any request when the input
 *   breaks the request layout.
 * @example
 * ```ts
 * import { activate } from '@tollgate/client-sdk';
 * const { credential, envelope } = await activate(options, { productId: 'acme-editor', credential: { licenseKey }, deviceKey, kemPublicKey, fingerprint, clientInfo });
 * await store.put('credential', envelope);
 * ```
 */
export async function activate(options: DeviceCallOptions, input: ActivateInput): Promise<Activation> {
  const idempotencyKey = idempotencyKeyOf(input.idempotencyKey);
  const nonce = freshNonce();
  const body = await signDeviceRequest('activation-request', buildActivationRequest(options, input, nonce), input.deviceKey);
  const { bytes, status } = await postLicenseMessage(options, '/v1/activate', body, 200, idempotentPost(options, idempotencyKey));
  inspectEnvelope(bytes, status);
  return { credential: await verifiedCredential(options, input, bytes, nonce), envelope: bytes, idempotencyKey };
}

/**
 * `POST /v1/offline/request`: the activation of a machine that cannot reach the server, sent by one
 * that can (license keys only). Signed and sent like {@link activate}; the answer is verified as an
 * `offline-response` and the machine credential inside it as well (both against the pinned roots and
 * the revocation feed, both echoing this request's nonce, the credential naming this device).
 *
 * @param options - Server, fetch, artifact verifier, clock.
 * @param input - As for {@link activate}, with a license key.
 * @returns The verified offline answer, its credential and the envelope.
 * @throws As {@link activate}; 1000 (403) also when the policy does not allow offline activation.
 * @example
 * ```ts
 * import { requestOffline } from '@tollgate/client-sdk';
 * const { answer, envelope } = await requestOffline(options, { ...input, credential: { licenseKey } });
 * await writeFile('activation.tollgate', envelope); // import on the air-gapped machine before answer.validUntil
 * ```
 */
export async function requestOffline(options: DeviceCallOptions, input: OfflineRequestInput): Promise<OfflineActivation> {
  const idempotencyKey = idempotencyKeyOf(input.idempotencyKey);
  const nonce = freshNonce();
  const body = await signDeviceRequest('offline-request', buildActivationRequest(options, input, nonce), input.deviceKey);
  const { bytes, status } = await postLicenseMessage(options, '/v1/offline/request', body, 200, idempotentPost(options, idempotencyKey));
  inspectEnvelope(bytes, status);
  const { payload: answer } = await options.verifier.verify(bytes, 'offline-response', { productId: input.productId });
  expectNonceEcho('offline answer', answer.nonceEcho, nonce);
  const credential = await verifiedCredential(options, input, answer.credential, nonce);
  return { answer, credential, envelope: bytes, idempotencyKey };
}
