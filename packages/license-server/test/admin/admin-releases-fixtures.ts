/**
 * Seeds shared by the release suites: builds registered through `POST /v1/admin/releases`, machines that
 * report a release written straight to the table (the client protocol writes that column).
 */
import { hexEncode } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import type { BootstrappedVendor } from '@tollgate/core/license';
import { freshKey, type AdminAnswer, type AdminHarness } from './admin-harness';
import { issueLicenses, seedMachines, seedPolicy } from './admin-license-fixtures';

/** 64 random lowercase hex digits (a build fingerprint, a manifest root, a seed). */
export const randomHex32 = (): string => hexEncode(randomBytes(32));

/** A registration body for the vendor's product, with a fresh build fingerprint. */
export function releaseBody(vendor: BootstrappedVendor, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { product_id: vendor.productId, app_version: '1.4.0', build_fingerprint: randomHex32(), channel: 'stable', ...fields };
}

/** Registers a build (vendor A unless a token is given) and returns the answer, failing on anything but 201. */
export async function registerRelease(bench: AdminHarness, body: Record<string, unknown>, token?: string): Promise<AdminAnswer> {
  const answer = await bench.call('POST', '/releases', { body, key: freshKey(), ...(token === undefined ? {} : { token }) });
  if (answer.status !== 201) throw new Error(`register answered ${answer.status}: ${answer.text}`);
  return answer;
}

/** Activates `count` machines of a fresh license of the vendor and marks them as running `releaseId`. */
export async function seedReleaseMachines(bench: AdminHarness, vendor: BootstrappedVendor, releaseId: string, count: number): Promise<string[]> {
  const policyId = await seedPolicy(bench, vendor, { seats: 50 });
  const [license] = await issueLicenses(bench, policyId, {}, vendor.token);
  const machines = await seedMachines(bench, vendor, (license as { license_id: string }).license_id, count);
  await bench.sql.query('UPDATE license_machines SET release_id = $1 WHERE machine_id = ANY($2)', [releaseId, machines]);
  return machines;
}

/** The audit actions appended for one release, oldest first. */
export async function releaseAuditActions(bench: AdminHarness, releaseId: string): Promise<string[]> {
  const { rows } = await bench.sql.query<{ action: string }>("SELECT action FROM license_audit_events WHERE target_type = 'release' AND target_id = $1 ORDER BY seq", [releaseId]);
  return rows.map((row) => row.action);
}
