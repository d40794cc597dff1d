import { reportSuspicion, suspiciousRefusal } from './suspicion-notices';
import type { CborKey, CborValue } from '../../cbor';
import { constantTimeEqualString } from '../../crypto';
import { hexEncode } from '../../crypto/hex';
import { LicenseClientError } from '../../errors/license-client';
import { sqlRateLimiterDatabase } from '../../storage/rate-limit/sql-rate-limiter';
import type { KillOrder, KillReason } from '../payloads/kill-order';
import type { ValidationTicket, ValidationVerdict } from '../payloads/validation-ticket';
import { parseRecord } from '../record-codec';
import { telemetryBlockSpec, type TelemetryBlock } from '../requests/telemetry';
import type { ValidateRequest } from '../requests/validate-request';
import { grantAssetKeys } from '../asset-keys/asset-key-grant';
import { judgeBuild, type BuildVerdict } from './activation-credential';
import { hashDeviceFingerprint, signClientArtifact, type ClientProtocolContext } from './client-protocol-deps';
import { budgetRefusal, clientBudget, spendClientBudget } from './client-rate-limits';
import { checkRequestProof, decodeClientRequest, refusedCredential, requestProofMessage } from './client-request';
import { licenseStanding, refreshSchedule, versionInScope } from './license-standing';
import { readSessionMachine, sessionNonceSpent, spendBudgetedSessionNonce, spendSessionNonce, type SessionMachine, type SessionNonceInput } from './session-store';
import { storeTelemetryBlock, telemetryWindowOf } from './telemetry-intake';
import { spendValidationInOneTrip } from './validation-one-trip';

/** How far behind the server's clock a validating device's `client_time` may be before it counts as set back. */
export const clientClockBehindSeconds = 86_400;

/** The map key of the telemetry block in a ValidateRequest. */
const telemetryKey = 11;

const killMessages: Record<KillReason, string> = {
  1: 'This license was revoked.',
  2: 'This device was revoked.',
  3: 'This device no longer holds a seat; activate it again.',
  4: 'This license was stopped for suspected fraud.',
  5: 'This license was refunded.',
  6: 'The signing key was revoked.',
  7: 'This release was revoked; install a current release.',
};

/**
 * Splits the optional telemetry block off a validate body. A block that breaks its layout or the 512-byte
 * cap is dropped, not refused: validation never fails because of telemetry (the proof still covers the
 * block as sent).
 */
function splitTelemetry(body: unknown): { rest: unknown; telemetry: TelemetryBlock | undefined } {
  if (!(body instanceof Map) || !body.has(telemetryKey)) return { rest: body, telemetry: undefined };
  const rest = new Map(body as Map<CborKey, CborValue>);
  const raw = rest.get(telemetryKey) as CborValue;
  rest.delete(telemetryKey);
  try {
    return { rest, telemetry: parseRecord(telemetryBlockSpec, raw) };
  } catch {
    return { rest, telemetry: undefined };
  }
}

/**
 * Admin revoke reason codes that name a kill reason of their own: an operator (or the billing
 * integration) revoking with `reason: 4` or `5` tells the device "fraud" or "refund" rather than the
 * plain "license revoked". Every other code (or none) is reason 1.
 */
const revokeReasonKills: ReadonlyMap<number, KillReason> = new Map([
  [4, 4],
  [5, 5],
]);

/** Why the machine must stop, if it must: the license, then the machine, then its seat. */
function killReasonOf(machine: SessionMachine): KillReason | undefined {
  if (machine.license.status === 'revoked') return revokeReasonKills.get(machine.license.revocationReason ?? -1) ?? 1;
  if (machine.status === 'revoked') return 2;
  if (machine.status === 'deactivated') return 3;
  return undefined;
}

async function signKillOrder(context: ClientProtocolContext, machine: SessionMachine, request: ValidateRequest, reason: KillReason, now: number): Promise<Uint8Array> {
  const order: KillOrder = {
    protoVersion: 1,
    licenseId: request.licenseId,
    machineId: request.machineId,
    nonceEcho: request.nonce,
    serverTime: now,
    reason,
    userMessage: killMessages[reason],
    revocationEpoch: machine.revocationEpoch,
  };
  return (await signClientArtifact(context.signingEpochs(), 'kill-order', order, { productId: machine.productId, now })).envelope;
}

async function judgeBuildDeferred(context: ClientProtocolContext, request: ValidateRequest): Promise<{ build?: BuildVerdict; unknown?: LicenseClientError }> {
  try {
    return { build: await judgeBuild(context.releaseGate, request.productId, request.clientInfo, { refuseRevoked: false }) };
  } catch (error) {
    if (error instanceof LicenseClientError && error.code === 1007) return { unknown: error };
    throw error;
  }
}

/**
 * Spends the nonce with the contact and, only when the nonce is fresh, the license's budget (1005 when
 * over it, leaving the nonce usable): in one statement when the budget lives in the shared SQL limiter
 * on this database or there is none, else a replay check, the budget, then the nonce. Only a request whose proof verified
 * gets here, so a forged proof spends neither; a replay spends nothing.
 */
async function spendProvenRequest(context: ClientProtocolContext, machine: SessionMachine, nonce: SessionNonceInput): Promise<{ fresh: boolean; active: boolean }> {
  const budget = clientBudget(context, 'validate', { licenseId: machine.licenseId });
  if (budget !== undefined && sqlRateLimiterDatabase(budget.limiter) === context.sql) {
    const spent = await spendBudgetedSessionNonce(context.sql, { ...nonce, budget: { key: budget.key, rule: budget.rule, nowMs: context.clock.now() } });
    if (spent.decision !== undefined && !spent.decision.allowed) throw budgetRefusal(spent.decision, false);
    return spent;
  }
  // Without a per-license budget there is nothing a replay could be charged: the nonce statement alone tells it.
  if (budget === undefined) return spendSessionNonce(context.sql, nonce);
  if (await sessionNonceSpent(context.sql, nonce.machineId, nonce.nonce)) return { fresh: false, active: false };
  await spendClientBudget(context, 'validate', { licenseId: machine.licenseId });
  return spendSessionNonce(context.sql, nonce);
}

type ValidateNonce = Omit<SessionNonceInput, 'releaseId'>;
type SpentValidation = { machine: SessionMachine; build?: BuildVerdict; unknown?: LicenseClientError; fresh: boolean; active: boolean };

/**
 * One round trip, when this instance knows the machine's key and the license budget lives in the SQL
 * limiter on this database (or there is no license budget): the proof is checked with the cached key first, and the statement spends
 * only if the stored key is still that key. `undefined` (nothing spent) sends the request the long way,
 * which also answers a forged proof (with its suspicion notice) and a machine that is gone.
 */
async function oneTrip(context: ClientProtocolContext, request: ValidateRequest, body: Map<CborKey, CborValue>, nonce: ValidateNonce): Promise<SpentValidation | undefined> {
  const licenseId = hexEncode(request.licenseId);
  const key = context.deviceKeys.get(nonce.machineId, licenseId, request.productId);
  if (key === undefined) return undefined;
  const budget = clientBudget(context, 'validate', { licenseId });
  // A budget kept elsewhere (not the SQL limiter on this database) cannot join the statement.
  if (budget !== undefined && sqlRateLimiterDatabase(budget.limiter) !== context.sql) return undefined;
  if (!context.verifyProof(key, requestProofMessage('validate-request', request.productId, body), request.proof)) return undefined;
  const { build, unknown } = await judgeBuildDeferred(context, request);
  const spent = await spendValidationInOneTrip(context.sql, {
    ...nonce,
    releaseId: build?.releaseId ?? null,
    budget: budget === undefined ? undefined : { key: budget.key, rule: budget.rule, nowMs: nonce.now.getTime() },
    licenseId,
    productId: request.productId,
    devicePublicKey: key,
  });
  if (spent === undefined) return undefined;
  if (spent.decision !== undefined && !spent.decision.allowed) throw budgetRefusal(spent.decision, false);
  return { machine: spent.machine, ...(build === undefined ? {} : { build }), ...(unknown === undefined ? {} : { unknown }), fresh: spent.fresh, active: spent.active };
}

/** The machine read, the proof checked with its key, then the budget, nonce and contact (one statement when it can). */
async function twoTrips(context: ClientProtocolContext, request: ValidateRequest, body: Map<CborKey, CborValue>, nonce: ValidateNonce): Promise<SpentValidation> {
  const machine = await readSessionMachine(context.sql, request);
  if (machine === undefined) throw refusedCredential(401);
  checkRequestProof('validate-request', request.productId, body, request.proof, machine.devicePublicKey, context.verifyProof);
  context.deviceKeys.remember(machine);
  // The release gate answers from its cache: judged before the license budget so the budget, the nonce
  // and the contact can be spent in one statement below.
  const { build, unknown } = await judgeBuildDeferred(context, request);
  const { fresh, active } = await spendProvenRequest(context, machine, { ...nonce, releaseId: build?.releaseId ?? null });
  return { machine, ...(build === undefined ? {} : { build }), ...(unknown === undefined ? {} : { unknown }), fresh, active };
}

/**
 * `POST /v1/validate`: a signed ValidationTicket, or a signed KillOrder (same status 200, told apart by
 * its kind). In order: the address budget; the layout (a malformed telemetry block is dropped); the
 * machine, which must belong to the license and product named (else 1000/401); the proof with the key
 * registered at activation (a forged proof is 1000/401 before the nonce is touched); the release gate
 * (cached); the nonce (a replay is 1000/401 and charges nothing), the license budget (charged only for
 * a fresh nonce; a refusal leaves the nonce usable) and the contact on the machine, in one statement
 * when the limiter allows it or there is no license budget (and, once this instance knows the device's key, with the machine read in
 * that same statement: see `spendValidationInOneTrip`); then
 * kill orders (license revoked 1, or 4/5 when revoked with reason code fraud/refund; machine revoked 2;
 * seat gone 3; release revoked 7), an unknown build (1007), a suspended or expired license (1000/403);
 * a client that saw a later revocation epoch or security floor than the server is reported through
 * `notify` (`rollback_reported`) and answered as usual (docs/protocol.md §14); the telemetry block, from the device
 * the credential was issued to only (same fingerprint), goes to the intake (both gates, drop and clip
 * counters; stored best effort); and finally the ticket, whose verdict says
 * needs_reactivation (the fingerprint changed) or version_out_of_scope (restricted mode). A ticket with
 * verdict 0 carries the asset keys of the entitled features for the reported release, wrapped to the
 * machine's KEM key (key 15; from a per-release cache and the machine row already read, so asset keys
 * add no database read once the release is cached).
 *
 * @param context - The service context.
 * @param input - The decoded body and the client address.
 * @returns The signed envelope.
 * @throws LicenseClientError with the spec's codes.
 * @example
 * ```ts
 * import { validateMachine } from '@tollgate/core/license';
 * const envelope = await validateMachine(context, { body: httpRequest.body, remoteAddress });
 * ```
 */
export async function validateMachine(context: ClientProtocolContext, input: { body: unknown; remoteAddress: string | undefined }): Promise<Uint8Array> {
  await spendClientBudget(context, 'validate', { address: input.remoteAddress });
  const { rest, telemetry } = splitTelemetry(input.body);
  const { request } = decodeClientRequest('validate-request', rest);
  const nowMs = context.clock.now();
  const now = Math.floor(nowMs / 1000);
  const nonce = {
    machineId: hexEncode(request.machineId),
    nonce: request.nonce,
    contact: 'validate' as const,
    now: new Date(nowMs),
    nonceExpiry: new Date(nowMs + context.retentionSeconds.nonceSeconds * 1000),
    appVersion: request.clientInfo.appVersion,
  };
  const trip = await oneTrip(context, request, input.body as Map<CborKey, CborValue>, nonce);
  const { machine, build, unknown, fresh, active } = trip ?? (await twoTrips(context, request, input.body as Map<CborKey, CborValue>, nonce));
  if (!fresh) throw suspiciousRefusal(refusedCredential(401), { productId: machine.productId, licenseId: machine.licenseId, kind: 'nonce_replay' });

  // The machine was read before the contact was written: a seat that was active then but took no contact
  // was lost in between (reclaimed, deactivated or revoked). Its seat may already be another device's, so
  // the answer is the kill order of the machine as it is now, never a ticket.
  const current = machine.status === 'active' && !active ? await readSessionMachine(context.sql, request) : machine;
  if (current === undefined) throw refusedCredential(401);
  const killReason = killReasonOf(current);
  if (killReason !== undefined) return signKillOrder(context, current, request, killReason, now);
  if (build === undefined) throw unknown ?? new Error('the release gate gave no verdict');
  const judgement = build.judgement;
  if (judgement?.kind === 'known' && judgement.state === 'compromised' && judgement.compromiseAction === 'revoke') return signKillOrder(context, machine, request, 7, now);
  const standing = licenseStanding(machine.license, machine.policy, now);
  if (standing.kind !== 'usable') throw new LicenseClientError(1000, standing.kind === 'suspended' ? 'This license is suspended.' : 'This license has expired.', { status: 403 });
  // A device that saw a later revocation epoch or floor than the server has: either the database was
  // restored from an older backup or the client is tampered with. Operators are told; the answer goes on
  // with the server's own values (the SDK never lowers what it has seen), because refusing would be a 5xx
  // any client could provoke, and a lying client gains nothing from a ticket with a lower epoch.
  if (request.knownRevocationEpoch > machine.revocationEpoch || request.knownSecurityFloor > build.securityFloor) {
    context.notify?.({
      kind: 'rollback_reported',
      licenseId: machine.licenseId,
      machineId: machine.machineId,
      details: { knownRevocationEpoch: request.knownRevocationEpoch, serverRevocationEpoch: machine.revocationEpoch, knownSecurityFloor: request.knownSecurityFloor, serverSecurityFloor: build.securityFloor },
    });
    reportSuspicion(context, { productId: machine.productId, licenseId: machine.licenseId, kind: 'clock_rollback' });
  } else if (request.clientTime < now - clientClockBehindSeconds) {
    // The device's clock is more than a day behind the server's: set back to stretch an offline
    // window (the SDK's clock guard revalidates at once when that happens). A signal, not a refusal:
    // a dead clock battery looks the same.
    reportSuspicion(context, { productId: machine.productId, licenseId: machine.licenseId, kind: 'clock_rollback' });
  }

  const entitlements = await context.entitlementCache.entitlements(context.sql, machine.vendorId, { product_id: machine.productId, tier: standing.tier, overrides: machine.license.entitlementOverrides }, machine.catalogStamp);
  const schedule = refreshSchedule(machine.policy, standing, now);
  const sameDevice = constantTimeEqualString(hashDeviceFingerprint(context.keys, request.fingerprint), machine.fingerprintHash);
  const verdict: ValidationVerdict = !sameDevice ? 1 : versionInScope(machine.license, machine.policy, build.appVersion) ? 0 : 2;
  // A machine credential presented with another fingerprint: copied to a second computer.
  if (!sameDevice) reportSuspicion(context, { productId: machine.productId, licenseId: machine.licenseId, kind: 'fingerprint_churn' });
  // The intake applies both gates (policy tier, consent) and counts what they drop. Only the device the
  // credential was issued to reports: a copy's usage would land under the real machine's pseudonym.
  if (telemetry !== undefined && sameDevice) await storeTelemetryBlock(context, machine, telemetry, new Date(nowMs));
  // Keys go only to the device the credential was issued to (same fingerprint), running a version its
  // license covers, for the release it runs now.
  const assetKeys = verdict !== 0
    ? undefined
    : await grantAssetKeys(context.assetKeys, context.sql, {
        releaseId: build.releaseId,
        features: entitlements.features,
        deviceKemKey: () => machine.deviceKemKey,
        context: { kind: 'validation-ticket', productId: machine.productId, licenseId: request.licenseId, machineId: request.machineId, nonceEcho: request.nonce, issuedAt: now, revocationEpoch: machine.revocationEpoch },
        random: context.randomSource,
      });
  const ticket: ValidationTicket = {
    protoVersion: 1,
    licenseId: request.licenseId,
    machineId: request.machineId,
    nonceEcho: request.nonce,
    serverNonce: context.randomSource(32),
    serverTime: now,
    refreshAfter: schedule.refreshAfter,
    graceSeconds: schedule.graceSeconds,
    ...(standing.expiresAt === undefined ? {} : { expiresAt: standing.expiresAt }),
    revocationEpoch: machine.revocationEpoch,
    verdict,
    securityFloor: build.securityFloor,
    entitlements,
    ...(judgement?.kind === 'known' ? { releaseStatus: judgement.releaseStatus } : {}),
    ...(judgement?.kind === 'known' && judgement.forceUpgrade ? { refreshNow: true as const } : {}),
    ...(assetKeys === undefined ? {} : { assetKeys }),
    // The tier gate, told to the device the server takes blocks from, so it collects nothing the server would drop.
    ...(machine.policy.telemetry === 't1' && sameDevice ? { telemetryWindow: telemetryWindowOf(now) } : {}),
  };
  return (await signClientArtifact(context.signingEpochs(), 'validation-ticket', ticket, { productId: machine.productId, now })).envelope;
}
