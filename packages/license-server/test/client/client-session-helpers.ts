/**
 * Helpers of the session suites (validate, heartbeat, deactivate, seat reclaim) on top of the client
 * bench: licensed devices, answers verified as a client would (keyset plus the revocation feed's revoked
 * epochs), Admin actions that change a seat's standing, and the seat-reclaim job on a manual clock.
 */
import { ManualClock } from '@tollgate/core';
import { decodeLicenseMessage, inspectArtifact, verifyArtifact, type KillOrder, type ValidationTicket, startSeatReclaimJob, type SeatReclaimJob } from '@tollgate/core/license';
import { freshKey } from '../admin/admin-harness';
import { currentKeyset, hexOf, issueLicenses, readFeed, seedPolicy } from '../admin/admin-license-fixtures';
import { newDevice, type ClientBench, type Device, type RawAnswer, type Seat } from './client-harness';

/** A device holding a seat of a fresh license of vendor A. */
export interface LicensedDevice {
  readonly device: Device;
  readonly seat: Seat;
  readonly licenseId: string;
  readonly machineId: string;
  readonly licenseKey: string;
  readonly policyId: string;
}

/**
 * Issues a license of a fresh policy (`terms` over the fixtures' defaults: 3 seats) and activates a
 * new device on it.
 */
export async function licensedDevice(bench: ClientBench, terms: Record<string, unknown> = {}, license: Record<string, unknown> = {}): Promise<LicensedDevice> {
  const policyId = await seedPolicy(bench.admin, bench.admin.vendorA, terms);
  const [issued] = await issueLicenses(bench.admin, policyId, license);
  if (issued === undefined) throw new Error('no license issued');
  const device = newDevice();
  const seat = await bench.seat(device, { licenseKey: issued.key });
  return {
    device,
    seat,
    licenseId: hexOf(seat.licenseId),
    machineId: hexOf(seat.machineId),
    licenseKey: issued.key,
    policyId,
  };
}

/** Another device on the same license; its activation answer (200 or an error). */
export async function activateAnother(bench: ClientBench, licensed: Pick<LicensedDevice, 'licenseKey'>, device: Device = newDevice()): Promise<RawAnswer> {
  return bench.activate(device, { licenseKey: licensed.licenseKey });
}

/** A validate answer verified as a client does: the kind tells a ticket from a kill order. */
export type VerifiedValidation = { readonly kind: 'ticket'; readonly ticket: ValidationTicket } | { readonly kind: 'kill'; readonly order: KillOrder };

/** The epoch ids the revocation feed has revoked (hex), as a client's follower holds them. */
export async function revokedEpochIds(bench: ClientBench): Promise<Set<string>> {
  const batches = await readFeed(bench.admin);
  return new Set(batches.flatMap((batch) => batch.epochIds.map(hexOf)));
}

/**
 * Checks that a validate answer is 200 `application/cbor` and verifies it against the served keyset with
 * the feed's revoked epochs, the product and the current time.
 */
export async function verifyValidation(bench: ClientBench, answer: RawAnswer): Promise<VerifiedValidation> {
  if (answer.status !== 200) throw new Error(`validate answered ${answer.status}: ${JSON.stringify(errorOf(answer))}`);
  if (answer.headers.get('content-type') !== 'application/cbor') throw new Error(`content-type ${answer.headers.get('content-type')}`);
  const options = {
    keys: await currentKeyset(bench.admin),
    productId: bench.productId,
    now: Math.floor(Date.now() / 1000),
    revokedEpochIds: await revokedEpochIds(bench),
  };
  const kind = inspectArtifact(answer.bytes).kind;
  if (kind === 'validation-ticket')
    return {
      kind: 'ticket',
      ticket: verifyArtifact(answer.bytes, 'validation-ticket', options).payload,
    };
  if (kind === 'kill-order')
    return {
      kind: 'kill',
      order: verifyArtifact(answer.bytes, 'kill-order', options).payload,
    };
  throw new Error(`validate answered a ${kind}`);
}

/** The ticket of a validate answer (fails on a kill order). */
export async function ticketOf(bench: ClientBench, answer: RawAnswer): Promise<ValidationTicket> {
  const verified = await verifyValidation(bench, answer);
  if (verified.kind !== 'ticket') throw new Error(`expected a ticket, got a kill order of reason ${verified.order.reason}`);
  return verified.ticket;
}

/** The kill order of a validate answer (fails on a ticket). */
export async function killOrderOf(bench: ClientBench, answer: RawAnswer): Promise<KillOrder> {
  const verified = await verifyValidation(bench, answer);
  if (verified.kind !== 'kill') throw new Error('expected a kill order, got a ticket');
  return verified.order;
}

/** The decoded CBOR error body of an answer. */
export function errorOf(answer: RawAnswer): {
  code: number;
  message?: string;
  retryAfter?: number;
} {
  return decodeLicenseMessage('error-body', answer.bytes);
}

/** Confirms an Admin revoke of a license or machine; fails unless it answers 200. */
export async function adminRevoke(bench: ClientBench, target: 'licenses' | 'machines', id: string, reason?: number): Promise<void> {
  const answer = await bench.admin.call('POST', `/${target}/${id}/revoke`, {
    body: reason === undefined ? {} : { reason },
    query: { dry_run: 'false' },
    key: freshKey(),
  });
  if (answer.status !== 200) throw new Error(`revoke answered ${answer.status}: ${answer.text}`);
}

/** Patches a license through the Admin API; fails unless it answers 200. */
export async function adminPatchLicense(bench: ClientBench, licenseId: string, body: Record<string, unknown>): Promise<void> {
  const answer = await bench.admin.call('PATCH', `/licenses/${licenseId}`, {
    body,
    key: freshKey(),
  });
  if (answer.status !== 200) throw new Error(`patch answered ${answer.status}: ${answer.text}`);
}

/**
 * A seat-reclaim job over the server's database and audit log whose clock the test moves (the
 * server's own job runs on the system clock, every minute): `runAt(ms)` runs one round at that time.
 */
export function reclaimJob(bench: ClientBench): {
  clock: ManualClock;
  job: SeatReclaimJob;
  runAt(ms: number): ReturnType<SeatReclaimJob['runOnce']>;
} {
  const clock = new ManualClock(Date.now());
  const { context } = bench.admin.server;
  const job = startSeatReclaimJob({
    sql: context.sql,
    audit: context.adminProvisioning.audit,
    clock,
    logger: context.logger,
    intervalMs: 3_600_000,
  });
  return {
    clock,
    job,
    runAt(ms) {
      clock.advance(ms - clock.now());
      return job.runOnce();
    },
  };
}

/** The machine's row as the session routes leave it. */
export async function machineRow(
  bench: ClientBench,
  machineId: string
): Promise<{
  status: string;
  deactivation_reason: string | null;
  last_seen_at: Date;
  last_heartbeat_at: Date | null;
  last_validated_at: Date | null;
}> {
  const { rows } = await bench.admin.sql.query<{
    status: string;
    deactivation_reason: string | null;
    last_seen_at: Date;
    last_heartbeat_at: Date | null;
    last_validated_at: Date | null;
  }>('SELECT status, deactivation_reason, last_seen_at, last_heartbeat_at, last_validated_at FROM license_machines WHERE machine_id = $1', [machineId]);
  if (rows[0] === undefined) throw new Error(`no machine ${machineId}`);
  return rows[0];
}
