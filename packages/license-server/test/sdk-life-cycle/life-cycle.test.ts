// The client SDK's license client against a real license server: activation, scheduled validation on a
// manual clock, grace while the server is away, fail-closed on a tampered answer, the clock guard, a
// restart from storage without network, kill orders, and deactivation.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeStoredLicense, type StateChange } from '@tollgate/client-sdk';
import { nodeEd25519Verifier } from '@tollgate/client-sdk/node';
import type { KillOrder } from '@tollgate/core/license';
import { freshKey } from '../admin/admin-harness';
import { issueClientLicense, openClientBench, type ClientBench } from '../client/client-harness';
import { serverEngines } from '../helpers';
import { clientRig, type ClientRig } from './helpers';
import { eventually } from '../../../../test/eventually';

const pglite = serverEngines.find((engine) => engine.name === 'pglite');
let bench: ClientBench;

beforeAll(async () => {
  bench = await openClientBench(pglite!);
}, 60_000);
afterAll(() => bench?.close());

const hour = 3_600_000;
/** One hour between validations, two hours of grace after that. */
const shortTerms = { validation_interval_seconds: 3_600, validation_grace_seconds: 7_200 };

async function activatedRig(terms: Record<string, unknown> = shortTerms): Promise<{ rig: ClientRig; licenseId: string; key: string }> {
  const license = await issueClientLicense(bench, terms);
  const rig = clientRig(bench);
  expect(await rig.client.start()).toBe('unlicensed');
  expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
  return { rig, licenseId: license.licenseId, key: license.key };
}

describe('the license client life cycle', () => {
  it('activates, validates on schedule, and keeps entitlements', async () => {
    const { rig } = await activatedRig();
    expect(rig.client.entitlements()).toMatchObject({ tier: expect.any(String) });
    const stored = decodeStoredLicense((await rig.storage.load())!);
    expect(stored).toMatchObject({ productId: bench.productId, consentVersion: 0 });
    expect(stored?.keyset).toBeInstanceOf(Uint8Array);
    // The next validation is due within the hour, jittered up to 10 % earlier (half of that here).
    const validations = () => rig.network.calls.filter((path) => path === '/v1/validate').length;
    rig.scheduler.advance(0.9 * hour);
    await rig.client.stop();
    await rig.client.start();
    expect(validations()).toBe(0);
    rig.scheduler.advance(0.1 * hour);
    await vi.waitFor(() => expect(validations()).toBe(1), eventually);
    await vi.waitFor(async () => expect(decodeStoredLicense((await rig.storage.load())!)?.ticket).toBeInstanceOf(Uint8Array), eventually);
    expect(rig.client.state).toBe('active');
    await rig.client.stop();
  });

  it('restarts from storage with no network: the stored credential verifies offline', async () => {
    const { rig } = await activatedRig();
    await rig.client.stop();
    const restarted = rig.restart();
    restarted.network.down = true;
    expect(await restarted.client.start()).toBe('active');
    expect(restarted.client.hasFeature('nonexistent-feature')).toBe(false);
    expect(restarted.client.entitlements()).toBeDefined();
    await restarted.client.stop();
  });

  it('verifies with a native Ed25519 verifier when given one, and refuses a forged answer with it too', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    let calls = 0;
    const verify: typeof nodeEd25519Verifier = (key, message, signature) => {
      calls += 1;
      return nodeEd25519Verifier(key, message, signature);
    };
    const rig = clientRig(bench, { overrides: { verify } });
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    expect(calls).toBeGreaterThan(0);
    await rig.client.stop();
    const restarted = rig.restart({ verify });
    restarted.network.down = true;
    const before = calls;
    expect(await restarted.client.start()).toBe('active');
    expect(calls).toBeGreaterThan(before);
    restarted.network.down = false;
    restarted.network.tamper = (path, body) => (path === '/v1/validate' ? body.map((byte, index) => (index === body.length - 3 ? byte ^ 0x01 : byte)) : undefined);
    expect(await restarted.client.validateNow()).toBe('locked');
    await restarted.client.stop();
  });

  it('rides out an unreachable server inside the grace window, locks after it, and recovers when the server is back', async () => {
    const { rig } = await activatedRig();
    const changes: StateChange[] = [];
    rig.client.on('state', (change) => changes.push(change));
    rig.network.down = true;
    rig.scheduler.advance(hour);
    await vi.waitFor(() => expect(rig.client.state).toBe('grace'), eventually);
    expect(changes.at(-1)).toMatchObject({ state: 'grace', reason: 'server_unreachable', graceEndsAt: expect.any(Number) });
    expect(rig.client.hasFeature).toBeDefined();
    expect(rig.client.entitlements()).toBeDefined();
    // Retries back off while the server is away; past the grace window the license locks.
    rig.scheduler.advance(2 * hour + 60_000);
    await vi.waitFor(() => expect(rig.client.state).toBe('locked'), eventually);
    expect(changes.at(-1)).toMatchObject({ state: 'locked', reason: 'grace_over' });
    expect(rig.client.entitlements()).toBeUndefined();
    rig.network.down = false;
    expect(await rig.client.validateNow()).toBe('active');
    await rig.client.stop();
  });

  it('fails closed at once on a tampered ticket, without waiting for grace', async () => {
    const { rig } = await activatedRig();
    rig.network.tamper = (path, body) => {
      if (path !== '/v1/validate') return undefined;
      const changed = body.slice();
      changed[changed.length - 5]! ^= 0x01;
      return changed;
    };
    expect(await rig.client.validateNow()).toBe('locked');
    expect(rig.client.entitlements()).toBeUndefined();
    await rig.client.stop();
  });

  it('treats a clock set back as needing revalidation, and judges grace at the highest time seen', async () => {
    const { rig, licenseId } = await activatedRig();
    await rig.client.stop();
    // The user sets the clock back two days and restarts without network: the license is judged at the
    // highest time seen (still inside the first hour), and must be revalidated.
    const restarted = rig.restart();
    restarted.clock.advance(-48 * hour);
    restarted.network.down = true;
    const changes: StateChange[] = [];
    restarted.client.on('state', (change) => changes.push(change));
    expect(await restarted.client.start()).toBe('needs_revalidation');
    expect(changes.at(-1)).toMatchObject({ reason: 'clock_set_back' });
    // It validates at once; with the server away, it stays usable only as long as the highest time seen allows.
    restarted.scheduler.advance(0);
    await vi.waitFor(() => expect(restarted.network.calls).toContain('/v1/validate'), eventually);
    await vi.waitFor(() => expect(restarted.client.state).toBe('needs_revalidation'), eventually);
    restarted.network.down = false;
    expect(await restarted.client.validateNow()).toBe('active');
    // The request carried the device's own clock: the server counts a clock rollback for the license.
    await vi.waitFor(async () => {
      const { rows } = await bench.admin.sql.query("SELECT 1 FROM license_suspicion_signals WHERE license_id = $1 AND kind = 'clock_rollback'", [licenseId]);
      expect(rows.length).toBeGreaterThan(0);
    }, eventually);
    await restarted.client.stop();
  });

  it('buys no time when the clock is set back after the grace window ran out', async () => {
    const { rig } = await activatedRig();
    rig.network.down = true;
    // Three hours without the server: past refresh (1 h) and grace (2 h more); each failed attempt raises the mark.
    for (let step = 0; step < 18; step += 1) rig.scheduler.advance(10 * 60_000);
    await vi.waitFor(() => expect(rig.client.state).toBe('locked'), eventually);
    await rig.client.stop();
    // The clock is set back to the first hour and the app restarted, still offline: locked all the same.
    const restarted = rig.restart();
    restarted.clock.advance(-3 * hour);
    restarted.network.down = true;
    expect(await restarted.client.start()).toBe('locked');
    expect(restarted.client.entitlements()).toBeUndefined();
    await restarted.client.stop();
  });

  it('obeys a kill order for each cause: wipes the stored license and says why', async () => {
    const causes: { name: string; revoke: (licenseId: string, rig: ClientRig) => Promise<void>; reason: KillOrder['reason'] }[] = [
      { name: 'license revoked', reason: 1, revoke: (id) => revokeLicense(id, undefined) },
      { name: 'fraud', reason: 4, revoke: (id) => revokeLicense(id, 4) },
      { name: 'refund', reason: 5, revoke: (id) => revokeLicense(id, 5) },
      {
        name: 'machine revoked',
        reason: 2,
        revoke: async (id) => {
          const machines = await bench.admin.call('GET', `/licenses/${id}/machines`);
          const machineId = (machines.body as { machines: { machine_id: string }[] }).machines[0]!.machine_id;
          const answer = await bench.admin.call('POST', `/machines/${machineId}/revoke`, { body: {}, query: { dry_run: 'false' }, key: freshKey() });
          expect(answer.status, answer.text).toBe(200);
        },
      },
    ];
    for (const cause of causes) {
      const { rig, licenseId } = await activatedRig();
      const kills: KillOrder[] = [];
      rig.client.on('kill', (order) => kills.push(order));
      await cause.revoke(licenseId, rig);
      expect(await rig.client.validateNow(), cause.name).toBe('revoked');
      expect(kills.map((order) => order.reason), cause.name).toEqual([cause.reason]);
      expect(await rig.storage.load(), cause.name).toBeUndefined();
      expect(rig.client.entitlements()).toBeUndefined();
      expect(rig.scheduler.pending, cause.name).toBe(0);
      await rig.client.stop();
    }
  });

  it('deactivates: frees the seat and wipes the stored license', async () => {
    const { rig, key } = await activatedRig({ ...shortTerms, seats: 1 });
    const other = clientRig(bench);
    // One seat, taken.
    await expect(other.client.activate({ licenseKey: key })).rejects.toMatchObject({ code: 1001 });
    expect(other.client.state).toBe('unlicensed');
    await rig.client.deactivate();
    expect(rig.client.state).toBe('unlicensed');
    expect(await rig.storage.load()).toBeUndefined();
    expect(rig.scheduler.pending).toBe(0);
    // The seat is free again: another device activates.
    expect(await other.client.activate({ licenseKey: key })).toBe('active');
    await other.client.stop();
  });
});

describe('deactivation of a machine the server no longer knows', () => {
  it('drops the local record when the server answers 1000/401 (machine erased), and keeps it on a network failure', async () => {
    const { rig, licenseId } = await activatedRig();
    const errors: unknown[] = [];
    rig.client.on('error', (error) => errors.push(error));
    rig.network.down = true;
    await expect(rig.client.deactivate()).rejects.toMatchObject({ code: 'network_error' });
    expect(await rig.storage.load()).toBeDefined();
    rig.network.down = false;
    const machines = await bench.admin.call('GET', `/licenses/${licenseId}/machines`);
    const machineId = (machines.body as { machines: { machine_id: string }[] }).machines[0]!.machine_id;
    const erased = await bench.admin.call('DELETE', `/machines/${machineId}`, { query: { dry_run: 'false' }, key: freshKey() });
    expect(erased.status, erased.text).toBe(200);
    await rig.client.deactivate();
    expect(rig.client.state).toBe('unlicensed');
    expect(await rig.storage.load()).toBeUndefined();
    expect(errors).toEqual([expect.objectContaining({ code: 1000, status: 401 })]);
    await rig.client.stop();
  });
});

async function revokeLicense(licenseId: string, reason: number | undefined): Promise<void> {
  const answer = await bench.admin.call('POST', `/licenses/${licenseId}/revoke`, { body: reason === undefined ? {} : { reason }, query: { dry_run: 'false' }, key: freshKey() });
  expect(answer.status, answer.text).toBe(200);
}

