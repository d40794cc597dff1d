import {
  decodeLicenseMessage,
  isArtifactError,
  signDeviceRequest,
  type ClientInfo,
  type KillOrder,
  type LicenseMessageKind,
  type LicenseMessages,
  type TelemetryBlock,
  type UnsignedDeviceRequest,
  type ValidationTicket,
} from '@tollgate/core/license';
import { clientTime, expectNonceEcho, expectSeat, freshNonce, idempotencyKeyOf, idempotentPost, type DeviceCallOptions, type DeviceSession } from './device-calls';
import { LicenseRequestError } from './errors';
import { inspectEnvelope, postLicenseMessage } from './protocol-http';

/**
 * What {@link validate} sends besides the session: the current fingerprint and client info, the
 * highest revocation epoch and security floor this device has seen (a server below them is behind and
 * answers 5000), and an optional telemetry block (≤ 512 bytes; never a reason for validation to fail).
 *
 * @example
 * ```ts
 * import type { ValidateInput } from '@tollgate/client-sdk';
 * const input: ValidateInput = { ...session, fingerprint, clientInfo, knownRevocationEpoch: saved.revocationEpoch, knownSecurityFloor: saved.securityFloor };
 * ```
 */
export interface ValidateInput extends DeviceSession {
  /** The fingerprint now: a different one than at activation yields a ticket with verdict 1 (needs reactivation). */
  readonly fingerprint: Uint8Array;
  readonly clientInfo: ClientInfo;
  /** The highest revocation epoch seen (0 by default). */
  readonly knownRevocationEpoch?: number;
  /** The highest security floor seen (0 by default). */
  readonly knownSecurityFloor?: number;
  readonly telemetry?: TelemetryBlock;
}

/**
 * The answer of {@link validate}, verified: keep running under a `ticket` (read its `verdict`,
 * `releaseStatus`, `refreshNow`), or stop under a `kill` order (`order.reason`, `order.userMessage`).
 * `envelope` is the signed bytes to store.
 *
 * @example
 * ```ts
 * import type { ValidateResult } from '@tollgate/client-sdk';
 * function apply(result: ValidateResult) {
 *   if (result.kind === 'kill') return shutDown(result.order.reason, result.order.userMessage);
 *   if (result.ticket.verdict === 2) enterRestrictedMode();
 * }
 * ```
 */
export type ValidateResult =
  | { readonly kind: 'ticket'; readonly ticket: ValidationTicket; readonly envelope: Uint8Array }
  | { readonly kind: 'kill'; readonly order: KillOrder; readonly envelope: Uint8Array };

/**
 * What {@link deactivate} sends besides the session.
 *
 * @example
 * ```ts
 * import type { DeactivateInput } from '@tollgate/client-sdk';
 * const input: DeactivateInput = { ...session, idempotencyKey: saved.deactivationKey };
 * ```
 */
export interface DeactivateInput extends DeviceSession {
  /** `Idempotency-Key` of this call's request (a fresh one when absent); see `ActivateInput.idempotencyKey`. */
  readonly idempotencyKey?: string;
}

/**
 * The answer of {@link heartbeat}: `ok` false means the machine holds no seat any more (the next
 * validation says why, with a kill order); send the next heartbeat after `nextAfter` (unix seconds).
 *
 * @example
 * ```ts
 * import type { HeartbeatResult } from '@tollgate/client-sdk';
 * const { ok, nextAfter }: HeartbeatResult = await heartbeat(options, session);
 * ```
 */
export interface HeartbeatResult {
  readonly ok: boolean;
  readonly nextAfter: number;
}

/** The session fields every heartbeat and deactivate request carries. */
function sessionRequest(options: DeviceCallOptions, session: DeviceSession, nonce: Uint8Array): UnsignedDeviceRequest<'heartbeat-request'> {
  return { protoVersion: 1, productId: session.productId, licenseId: session.seat.licenseId, machineId: session.seat.machineId, nonce, clientTime: clientTime(options) };
}

/** Decodes an unsigned answer; a malformed one is `unexpected_response` (the server or a proxy misbehaves). */
function decodeUnsigned<Kind extends LicenseMessageKind>(kind: Kind, bytes: Uint8Array, status: number): LicenseMessages[Kind] {
  try {
    return decodeLicenseMessage(kind, bytes);
  } catch (error) {
    if (!isArtifactError(error)) throw error;
    throw new LicenseRequestError('unexpected_response', `The license server sent a malformed ${kind}: ${error.message}`, { status, cause: error });
  }
}

/**
 * `POST /v1/validate`: asks whether this machine may keep running. Signs the ValidateRequest (fresh
 * nonce) with the device key, and returns the answer only after it verified against the pinned roots
 * and the revocation feed, echoes this request's nonce and names this seat: a validation ticket
 * (`kind: 'ticket'`) or a kill order (`kind: 'kill'`), which the server sends with the same status.
 *
 * @param options - Server, fetch, artifact verifier, clock.
 * @param input - Session, fingerprint, client info, known epoch and floor, telemetry.
 * @returns The verified ticket or kill order.
 * @throws `LicenseRequestError`: 1000 (unknown machine, bad proof, replayed nonce; 403 for a suspended or
 *   expired license), 1005 (`retryAfterSeconds`), 1007 (build not registered), 5000 (also when the
 *   server is behind what this device has seen), `network_error` (also after `requestTimeoutMs`),
 *   `unexpected_response` (a 200 body that is no signed envelope). `ArtifactError` /
 *   `ResponseMismatchError` when the answer does not verify or answers another request or seat (fail
 *   closed); `RevocationFeedError` `stale` when the feed cannot be synced.
 * @example
 * ```ts
 * import { validate } from '@tollgate/client-sdk';
 * const result = await validate(options, { productId: 'acme-editor', seat: credential, deviceKey, fingerprint, clientInfo });
 * if (result.kind === 'kill') shutDown(result.order.userMessage);
 * ```
 */
export async function validate(options: DeviceCallOptions, input: ValidateInput): Promise<ValidateResult> {
  const nonce = freshNonce();
  const request: UnsignedDeviceRequest<'validate-request'> = {
    protoVersion: 1,
    productId: input.productId,
    licenseId: input.seat.licenseId,
    machineId: input.seat.machineId,
    fingerprint: input.fingerprint,
    nonce,
    clientTime: clientTime(options),
    knownRevocationEpoch: input.knownRevocationEpoch ?? 0,
    knownSecurityFloor: input.knownSecurityFloor ?? 0,
    clientInfo: input.clientInfo,
    ...(input.telemetry === undefined ? {} : { telemetry: input.telemetry }),
  };
  const body = await signDeviceRequest('validate-request', request, input.deviceKey);
  const { bytes, status } = await postLicenseMessage(options, '/v1/validate', body, 200);
  // The unverified kind only picks which kind to verify as; anything but a kill order must verify as a
  // ticket (so an unknown or other kind fails `wrong_kind` / `unknown_kind`). A body that is no envelope
  // at all (a proxy's HTML page) is `unexpected_response`, not a refusal.
  if (inspectEnvelope(bytes, status).kind === 'kill-order') {
    const { payload: order } = await options.verifier.verify(bytes, 'kill-order', { productId: input.productId });
    expectNonceEcho('kill order', order.nonceEcho, nonce);
    expectSeat('kill order', order, input.seat);
    return { kind: 'kill', order, envelope: bytes };
  }
  const { payload: ticket } = await options.verifier.verify(bytes, 'validation-ticket', { productId: input.productId });
  expectNonceEcho('validation ticket', ticket.nonceEcho, nonce);
  expectSeat('validation ticket', ticket, input.seat);
  return { kind: 'ticket', ticket, envelope: bytes };
}

/**
 * `POST /v1/heartbeat`: tells the server this machine is alive, so its seat is not reclaimed. The
 * answer is unsigned (it only paces the next heartbeat) but must echo this request's nonce.
 *
 * @param options - Server, fetch, clock (the verifier is not used: nothing is signed).
 * @param session - Product, seat, device key.
 * @returns `ok` and `nextAfter`.
 * @throws `LicenseRequestError` (1000 for an unknown machine or a bad proof, 5000, `network_error`,
 *   `unexpected_response`); `ResponseMismatchError` `nonce_mismatch`.
 * @example
 * ```ts
 * import { heartbeat } from '@tollgate/client-sdk';
 * const { ok, nextAfter } = await heartbeat(options, { productId: 'acme-editor', seat: credential, deviceKey });
 * if (!ok) await validateNow();
 * ```
 */
export async function heartbeat(options: DeviceCallOptions, session: DeviceSession): Promise<HeartbeatResult> {
  const nonce = freshNonce();
  const body = await signDeviceRequest('heartbeat-request', sessionRequest(options, session, nonce), session.deviceKey);
  const { bytes, status } = await postLicenseMessage(options, '/v1/heartbeat', body, 200);
  const answer = decodeUnsigned('heartbeat-response', bytes, status);
  expectNonceEcho('heartbeat answer', answer.nonceEcho, nonce);
  return { ok: answer.ok, nextAfter: answer.nextAfter };
}

/**
 * `POST /v1/deactivate`: frees this machine's seat (idempotent: a machine without a seat is answered the
 * same). Signed with the device key, sent with an `Idempotency-Key`; the answer must echo the nonce.
 * Forget the credential afterwards: the next validation would answer a kill order (seat gone).
 *
 * @param options - Server, fetch, clock.
 * @param input - Product, seat, device key, optional Idempotency-Key.
 * @throws `LicenseRequestError` (1000, 5000, `network_error`, `unexpected_response`);
 *   `ResponseMismatchError` `nonce_mismatch`.
 * @example
 * ```ts
 * import { deactivate } from '@tollgate/client-sdk';
 * await deactivate(options, { productId: 'acme-editor', seat: credential, deviceKey });
 * await store.delete('credential');
 * ```
 */
export async function deactivate(options: DeviceCallOptions, input: DeactivateInput): Promise<void> {
  const idempotencyKey = idempotencyKeyOf(input.idempotencyKey);
  const nonce = freshNonce();
  const body = await signDeviceRequest('deactivate-request', sessionRequest(options, input, nonce), input.deviceKey);
  const { bytes, status } = await postLicenseMessage(options, '/v1/deactivate', body, 200, idempotentPost(options, idempotencyKey));
  expectNonceEcho('deactivate answer', decodeUnsigned('deactivate-response', bytes, status).nonceEcho, nonce);
}
