import { reportSuspicion, suspiciousRefusal } from './suspicion-notices';
import { randomId } from '../../crypto/random';
import { LicenseClientError } from '../../errors/license-client';
import type { SqlClient } from '../../storage/sql-client';
import { hashLicenseKey } from '../model/licenses/license-key';
import type { ActivationRequest } from '../requests/activation-request';
import { judgeBuild, signMachineCredential, type BuildVerdict } from './activation-credential';
import { accountLicenseOfDevice, findLicenseIdByKey, lockActivationAccount, lockActivationLicenses, takeSeat, type ActivationAccount, type ActivationLicense } from './activation-store';
import { hashDeviceFingerprint, type ClientProtocolContext } from './client-protocol-deps';
import { spendClientBudget } from './client-rate-limits';
import { checkRequestProof, refusedCredential, requestDigest, type ClientRequest, type IdempotencyKeyDigest } from './client-request';
import { lookupClientIdempotency, lockClientIdempotencySlot, spendClientNonce, storeClientIdempotency, type ClientIdempotencyLookup, type ClientIdempotencySlot } from './client-replay-store';
import { licenseStanding, versionInScope, type LicenseStanding } from './license-standing';
import { offlineAnswerValiditySeconds, readOfflineArchive, signOfflineAnswer } from './offline-answer';

/** What an idempotent route answers: bytes to send, or a conflict (the route renders 1000 with 409). */
export type ClientAnswer = { readonly kind: 'answer'; readonly status: number; readonly body: Uint8Array } | { readonly kind: 'conflict' };

/** One activation as the route hands it over. */
export interface ActivationInput {
  /** `activate` (POST /v1/activate) or `offline` (POST /v1/offline/request, license keys only). */
  readonly route: 'activate' | 'offline';
  readonly clientRequest: ClientRequest<'activation-request'> | ClientRequest<'offline-request'>;
  readonly idempotencyKey: IdempotencyKeyDigest;
  readonly remoteAddress: string | undefined;
}

type Credential = { readonly kind: 'license'; readonly licenseId: string } | { readonly kind: 'account'; readonly accountId: string };
type Seat = { license: ActivationLicense; standing: Extract<LicenseStanding, { kind: 'usable' }>; machineId: string; reused: boolean; keyChanged: boolean };

function earlierAnswer(found: Exclude<ClientIdempotencyLookup, { kind: 'none' }>): ClientAnswer {
  return found.kind === 'replay' ? { kind: 'answer', status: found.status, body: found.body } : { kind: 'conflict' };
}

async function resolveCredential(context: ClientProtocolContext, request: ActivationRequest): Promise<Credential> {
  const { licenseKey, accountToken } = request.credential;
  if (licenseKey !== undefined) {
    const keyHash = hashLicenseKey(context.keys.licenseKeyHash, licenseKey);
    const licenseId = keyHash === undefined ? undefined : await findLicenseIdByKey(context.sql, keyHash, request.productId);
    if (licenseId === undefined) throw refusedCredential(401);
    return { kind: 'license', licenseId };
  }
  const identity = accountToken === undefined ? undefined : await context.accountTokens?.verifyAccessToken(request.productId, accountToken);
  if (identity === undefined || identity.productId !== request.productId) throw new LicenseClientError(1003, 'Sign in again: the account session is missing or expired.');
  return { kind: 'account', accountId: identity.accountId };
}

/** The licenses a credential may take a seat on, in the order they are tried (the account's oldest first). */
async function candidateLicenses(sql: SqlClient, credential: Credential, productId: string, lock: boolean): Promise<{ account?: ActivationAccount; licenses: ActivationLicense[] }> {
  if (credential.kind === 'license') return { licenses: await lockActivationLicenses(sql, [credential.licenseId], { lock }) };
  const account = await lockActivationAccount(sql, credential.accountId, productId, { lock });
  if (account === undefined) throw new LicenseClientError(1003, 'Sign in again: the account is not active.');
  const byId = new Map((await lockActivationLicenses(sql, account.licenseIds, { lock })).map((license) => [license.licenseId, license]));
  return { account, licenses: account.licenseIds.flatMap((id) => byId.get(id) ?? []) };
}

/**
 * Why none of the candidate licenses can take the device, worst last: a license that is not usable
 * (revoked, suspended, expired, offline not allowed) is 1000 (403); a version outside the scope 1008;
 * no free seat (or the account's device limit) 1001.
 */
type Refusal = 'unusable' | 'out_of_scope' | 'full';

function refusal(reason: Refusal, offline: boolean): LicenseClientError {
  if (reason === 'full') return new LicenseClientError(1001, 'No seat is free on this license (or the account reached its device limit); deactivate another device first.');
  if (reason === 'out_of_scope') return new LicenseClientError(1008, "This app version is outside the license's version scope.");
  return new LicenseClientError(1000, offline ? 'This license cannot be activated offline (revoked, suspended, expired, or offline activation not allowed).' : 'This license cannot be activated (revoked, suspended or expired).', { status: 403 });
}

/** The pre-check before the release gate (no locks): the same judgement as under the lock, minus seats. */
function usableNow(license: ActivationLicense, offline: boolean, now: number): LicenseStanding | undefined {
  if (license.status === 'revoked' || (offline && !license.policy.offline_allowed)) return undefined;
  const standing = licenseStanding(license, license.policy, now);
  return standing.kind === 'usable' ? standing : undefined;
}

async function chooseSeat(
  context: ClientProtocolContext,
  tx: SqlClient,
  input: { candidates: { account?: ActivationAccount; licenses: ActivationLicense[] }; request: ActivationRequest; build: BuildVerdict; offline: boolean; now: Date },
): Promise<Seat> {
  const { request, build, offline } = input;
  const now = Math.floor(input.now.getTime() / 1000);
  const fingerprintHash = hashDeviceFingerprint(context.keys, request.fingerprint);
  const { account } = input.candidates;
  let licenses = input.candidates.licenses;
  if (account !== undefined) {
    // A device already active on one of the account's licenses re-activates there.
    const holding = await accountLicenseOfDevice(tx, account.licenseIds, fingerprintHash);
    licenses = [...licenses.filter((license) => license.licenseId === holding), ...licenses.filter((license) => license.licenseId !== holding)];
  }
  const device = {
    fingerprintHash,
    devicePublicKey: request.devicePublicKey,
    deviceKemKey: request.deviceKemKey,
    accountId: account?.accountId ?? null,
    offline,
    appVersion: request.clientInfo.appVersion,
    platform: `${request.clientInfo.os}-${request.clientInfo.arch}`,
    releaseId: build.releaseId,
  };
  let worst: Refusal = 'unusable';
  let fullLicenseId: string | undefined;
  for (const license of licenses) {
    const standing = usableNow(license, offline, now);
    if (standing === undefined || standing.kind !== 'usable') continue;
    if (!versionInScope(license, license.policy, build.appVersion)) {
      if (worst === 'unusable') worst = 'out_of_scope';
      continue;
    }
    const seat = await takeSeat(tx, license, device, { machineId: randomId(context.randomSource), ...(account === undefined ? {} : { maxDevices: account.maxDevices }), now: input.now });
    if (seat.kind === 'full') {
      worst = 'full';
      fullLicenseId ??= license.licenseId;
      continue;
    }
    return { license, standing, machineId: seat.machineId, reused: seat.kind === 'reused', keyChanged: seat.kind === 'reused' && seat.keyChanged };
  }
  // More devices than seats trying one license is how a shared key shows: a fingerprint-churn signal.
  if (worst === 'full') throw suspiciousRefusal(refusal(worst, offline), { productId: request.productId, ...(fullLicenseId === undefined ? {} : { licenseId: fullLicenseId }), kind: 'fingerprint_churn' });
  throw refusal(worst, offline);
}

/**
 * Spends the request's nonce in its device key's space, or refuses it as a replay (1000/401). Online
 * activations keep it for the nonce retention; offline ones at least as long as their answer can be
 * imported, because erasing the machine deletes the archive that answers their replays, and this nonce
 * (kept through erasure) is then what stops the same signed request from recreating the machine.
 */
async function spendDeviceKeyNonce(context: ClientProtocolContext, tx: SqlClient, request: ActivationRequest, times: { now: Date; offline: boolean }): Promise<void> {
  const { now, offline } = times;
  const keptSeconds = offline ? Math.max(context.retentionSeconds.nonceSeconds, offlineAnswerValiditySeconds) : context.retentionSeconds.nonceSeconds;
  if (!(await spendClientNonce(tx, request.devicePublicKey, request.nonce, new Date(now.getTime() + keptSeconds * 1000)))) {
    throw suspiciousRefusal(refusedCredential(401), { productId: request.productId, kind: 'nonce_replay' });
  }
}

/**
 * `POST /v1/activate` and `POST /v1/offline/request`. In order: the address budget; the proof with the
 * key inside the request (nothing is touched before it verifies); the Idempotency-Key (the same request
 * again gets the stored bytes, another request under the key a conflict); the credential (license key
 * or account access token); the license budget; for offline requests a replayed nonce gets the archived
 * answer; a pre-check of the licenses and the release gate (1007, 1009); then one transaction that
 * serialises twins of the key, spends the nonce (activate), locks the account and the licenses, (offline)
 * answers the archive or spends the nonce, takes a seat exactly (1000/403, 1008, 1001), signs, audits and
 * files the answer.
 *
 * @param context - The service context.
 * @param input - The decoded request, its Idempotency-Key and the client address.
 * @returns The answer (a machine credential, or an offline response) or a conflict.
 * @throws LicenseClientError with the spec's codes.
 * @example
 * ```ts
 * import { activateDevice, clientProtocolContext } from '@tollgate/core/license';
 * const answer = await activateDevice(clientProtocolContext(deps), { route: 'activate', clientRequest, idempotencyKey, remoteAddress });
 * ```
 */
export async function activateDevice(context: ClientProtocolContext, input: ActivationInput): Promise<ClientAnswer> {
  const { route, clientRequest } = input;
  const { request, map } = clientRequest;
  const offline = route === 'offline';
  await spendClientBudget(context, route, { address: input.remoteAddress });
  checkRequestProof(clientRequest.kind, request.productId, map, request.proof, request.devicePublicKey, context.verifyProof);
  const now = new Date(context.clock.now());
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const slot: ClientIdempotencySlot = { route, scope: request.devicePublicKey, keyHash: input.idempotencyKey.keyHash, requestDigest: requestDigest(map) };
  const earlier = await lookupClientIdempotency(context.sql, slot, now);
  if (earlier.kind !== 'none') return earlierAnswer(earlier);

  const credential = await resolveCredential(context, request);
  await spendClientBudget(context, route, { licenseId: credential.kind === 'license' ? credential.licenseId : `account-${credential.accountId}` });
  if (offline && credential.kind === 'license') {
    const archived = await readOfflineArchive(context.sql, credential.licenseId, request.nonce, now);
    if (archived !== undefined) return { kind: 'answer', status: 200, body: archived };
  }
  const precheck = await candidateLicenses(context.sql, credential, request.productId, false);
  if (!precheck.licenses.some((license) => usableNow(license, offline, nowSeconds) !== undefined)) throw refusal('unusable', offline);
  const build = await judgeBuild(context.releaseGate, request.productId, request.clientInfo, { refuseRevoked: true });

  let grantedOffline: string | undefined;
  const answer = await context.sql.transaction(async (tx) => {
    await lockClientIdempotencySlot(tx, slot);
    const twin = await lookupClientIdempotency(tx, slot, now);
    if (twin.kind !== 'none') return earlierAnswer(twin);
    if (!offline) await spendDeviceKeyNonce(context, tx, request, { now, offline });
    const candidates = await candidateLicenses(tx, credential, request.productId, true);
    if (offline && credential.kind === 'license') {
      // A twin of this nonce that held the license lock before us has committed its answer by now.
      const archived = await readOfflineArchive(tx, credential.licenseId, request.nonce, now);
      if (archived !== undefined) return { kind: 'answer', status: 200, body: archived } as const;
      // Not archived (first use, or its machine was erased with the archive): the nonce must be unspent.
      await spendDeviceKeyNonce(context, tx, request, { now, offline });
    }
    const seat = await chooseSeat(context, tx, { candidates, request, build, offline, now });
    const { envelope, signer } = await signMachineCredential(context, tx, { ...seat, request, build, offline, now: nowSeconds });
    const body = offline ? await signOfflineAnswer(tx, { signer, credential: envelope, license: seat.license, machineId: seat.machineId, nonce: request.nonce, now }) : envelope;
    await context.audit.append(
      tx,
      {
        vendorId: seat.license.vendorId,
        actor: `device:${seat.machineId}`,
        action: offline ? 'machine.activate_offline' : seat.reused ? 'machine.reactivate' : 'machine.activate',
        targetType: 'machine',
        targetId: seat.machineId,
        summary: {
          license_id: seat.license.licenseId,
          via: credential.kind === 'license' ? 'license_key' : 'account_token',
          ...(credential.kind === 'account' ? { account_id: credential.accountId } : {}),
          reused_seat: seat.reused,
          ...(seat.reused ? { device_key_changed: seat.keyChanged } : {}),
          app_version: request.clientInfo.appVersion,
          release_id: build.releaseId,
        },
      },
      now.getTime(),
    );
    await storeClientIdempotency(tx, slot, { machineId: seat.machineId, status: 200, body }, { now, expiresAt: new Date(now.getTime() + context.retentionSeconds.idempotencySeconds * 1000) });
    if (offline) grantedOffline = seat.license.licenseId;
    return { kind: 'answer', status: 200, body } as const;
  });
  // Each new offline activation counts: a burst of them is a license being copied onto air-gapped machines.
  if (grantedOffline !== undefined) reportSuspicion(context, { productId: request.productId, licenseId: grantedOffline, kind: 'offline_burst' });
  return answer;
}
