import { spendClientBudget } from './client-rate-limits';
import { suspiciousRefusal } from './suspicion-notices';
import { hexDecode } from '../../crypto/hex';
import { encodeLicenseMessage } from '../messages';
import type { SessionRequest } from '../requests/validate-request';
import type { ClientAnswer } from './activation';
import type { ClientProtocolContext } from './client-protocol-deps';
import { checkRequestProof, refusedCredential, requestDigest, type ClientRequest, type IdempotencyKeyDigest } from './client-request';
import { lockClientIdempotencySlot, lookupClientIdempotency, spendClientNonce, storeClientIdempotency, type ClientIdempotencySlot } from './client-replay-store';
import { readSessionMachine, spendSessionNonce, type SessionMachine } from './session-store';

/** Shortest pause between heartbeats the server asks for, in seconds. */
export const minHeartbeatSpacingSeconds = 20;

/**
 * When a machine should send its next heartbeat: a third of the policy's heartbeat window (so two can
 * be lost before the seat is reclaimed), at least 20 s; without a window (heartbeats not required),
 * at the next validation.
 *
 * @param policy - The license's policy.
 * @param now - Unix seconds.
 * @returns `next_after`.
 * @example
 * ```ts
 * import { nextHeartbeatAfter } from '@tollgate/core/license';
 * nextHeartbeatAfter({ heartbeat_window_seconds: 300, validation_interval_seconds: 86_400 }, now); // now + 100
 * ```
 */
export function nextHeartbeatAfter(policy: { heartbeat_window_seconds: number | null; validation_interval_seconds: number }, now: number): number {
  const window = policy.heartbeat_window_seconds;
  return now + (window === null ? policy.validation_interval_seconds : Math.max(minHeartbeatSpacingSeconds, Math.floor(window / 3)));
}

async function authenticatedMachine(context: ClientProtocolContext, clientRequest: ClientRequest<'heartbeat-request' | 'deactivate-request'>): Promise<SessionMachine> {
  const { request, map, kind } = clientRequest;
  const machine = await readSessionMachine(context.sql, request);
  if (machine === undefined) throw refusedCredential(401);
  checkRequestProof(kind, request.productId, map, request.proof, machine.devicePublicKey, context.verifyProof);
  return machine;
}

/**
 * `POST /v1/heartbeat`: charged only the client address's budget; after the proof (registered key) and
 * the nonce (a replay is 1000/401), records the contact on a machine that holds a seat and answers
 * `{ok, next_after, nonce_echo}`. `ok` is false when the machine holds no seat any more (revoked,
 * deactivated or reclaimed): the device learns why from its next validation, which answers a kill order.
 *
 * @param context - The service context.
 * @param clientRequest - The decoded heartbeat.
 * @returns The canonical HeartbeatResponse.
 * @throws LicenseClientError 1000.
 * @example
 * ```ts
 * import { heartbeatMachine } from '@tollgate/core/license';
 * const body = await heartbeatMachine(context, decodeClientRequest('heartbeat-request', httpRequest.body));
 * ```
 */
export async function heartbeatMachine(context: ClientProtocolContext, clientRequest: ClientRequest<'heartbeat-request'>, remoteAddress?: string): Promise<Uint8Array> {
  // Only the address's budget: a per-license one would be shared by every machine of a floating
  // license, so a busy license (or one noisy machine) would get heartbeats refused and seats reclaimed.
  await spendClientBudget(context, 'heartbeat', { address: remoteAddress });
  const machine = await authenticatedMachine(context, clientRequest);
  const nowMs = context.clock.now();
  const { fresh, active } = await spendSessionNonce(context.sql, {
    machineId: machine.machineId,
    nonce: clientRequest.request.nonce,
    contact: 'heartbeat',
    now: new Date(nowMs),
    nonceExpiry: new Date(nowMs + context.retentionSeconds.nonceSeconds * 1000),
  });
  if (!fresh) throw suspiciousRefusal(refusedCredential(401), { productId: machine.productId, licenseId: machine.licenseId, kind: 'nonce_replay' });
  return encodeLicenseMessage('heartbeat-response', {
    protoVersion: 1,
    ok: active && machine.license.status !== 'revoked',
    nextAfter: nextHeartbeatAfter(machine.policy, Math.floor(nowMs / 1000)),
    nonceEcho: clientRequest.request.nonce,
  });
}

/**
 * `POST /v1/deactivate` (Idempotency-Key): frees the machine's seat and answers `{ok: true, nonce_echo}`.
 * Charged only the client address's budget (no per-license one).
 * Idempotent: a machine that holds no seat any more is answered the same (nothing to free). After the
 * proof, the same request under the same key gets the stored bytes and another request under it is a
 * conflict; then one transaction serialises twins, spends the nonce, frees the seat, audits
 * `machine.deactivate` when it freed one, and files the answer.
 *
 * @param context - The service context.
 * @param input - The decoded request and its Idempotency-Key.
 * @returns The answer or a conflict.
 * @throws LicenseClientError 1000.
 * @example
 * ```ts
 * import { deactivateMachine } from '@tollgate/core/license';
 * const answer = await deactivateMachine(context, { clientRequest, idempotencyKey });
 * ```
 */
export async function deactivateMachine(
  context: ClientProtocolContext,
  input: { clientRequest: ClientRequest<'deactivate-request'>; idempotencyKey: IdempotencyKeyDigest; remoteAddress?: string | undefined },
): Promise<ClientAnswer> {
  const { clientRequest } = input;
  const request: SessionRequest = clientRequest.request;
  // Only the address's budget (no per-license one, as for heartbeat): a resend after a lost answer must
  // get its stored bytes, not a refusal charged to the other machines of the license.
  await spendClientBudget(context, 'deactivate', { address: input.remoteAddress });
  const machine = await authenticatedMachine(context, clientRequest);
  const now = new Date(context.clock.now());
  const slot: ClientIdempotencySlot = { route: 'deactivate', scope: hexDecode(machine.machineId), keyHash: input.idempotencyKey.keyHash, requestDigest: requestDigest(clientRequest.map) };
  const earlier = await lookupClientIdempotency(context.sql, slot, now);
  if (earlier.kind === 'replay') return { kind: 'answer', status: earlier.status, body: earlier.body };
  if (earlier.kind === 'conflict') return earlier;
  return context.sql.transaction(async (tx) => {
    await lockClientIdempotencySlot(tx, slot);
    const twin = await lookupClientIdempotency(tx, slot, now);
    if (twin.kind === 'replay') return { kind: 'answer', status: twin.status, body: twin.body } as const;
    if (twin.kind === 'conflict') return twin;
    if (!(await spendClientNonce(tx, slot.scope, request.nonce, new Date(now.getTime() + context.retentionSeconds.nonceSeconds * 1000)))) {
      throw suspiciousRefusal(refusedCredential(401), { productId: machine.productId, licenseId: machine.licenseId, kind: 'nonce_replay' });
    }
    const { rowCount } = await tx.query(
      `UPDATE license_machines SET status = 'deactivated', deactivated_at = $2, deactivation_reason = 'client', last_seen_at = $2 WHERE machine_id = $1 AND status = 'active'`,
      [machine.machineId, now],
    );
    if (rowCount === 1) {
      await context.audit.append(
        tx,
        { vendorId: machine.vendorId, actor: `device:${machine.machineId}`, action: 'machine.deactivate', targetType: 'machine', targetId: machine.machineId, summary: { license_id: machine.licenseId } },
        now.getTime(),
      );
    }
    const body = encodeLicenseMessage('deactivate-response', { protoVersion: 1, ok: true, nonceEcho: request.nonce });
    await storeClientIdempotency(tx, slot, { machineId: machine.machineId, status: 200, body }, { now, expiresAt: new Date(now.getTime() + context.retentionSeconds.idempotencySeconds * 1000) });
    return { kind: 'answer', status: 200, body } as const;
  });
}
