// The license client acts on what the server says even when storage fails, and what it was told
// survives a restart: a kill order whose wipe fails, a verdict-1 answer whose save fails, an activation
// whose save fails, a refusal, a verdict-1 ticket, a record copied to another device, a failed
// re-activation, and refresh_now (a force_upgrade release) without a validation loop.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryStorage, decodeStoredLicense, type StateChange } from '@tollgate/client-sdk';
import { hexDecode } from '@tollgate/core';
import type { ClientInfo, KillOrder } from '@tollgate/core/license';
import { freshKey } from '../admin/admin-harness';
import { registerRelease, releaseBody } from '../admin/admin-releases-fixtures';
import { defaultClientInfo, issueClientLicense, openClientBench, type ClientBench } from '../client/client-harness';
import { serverEngines } from '../helpers';
import { clientRig, failingStorage } from './helpers';
import { eventually } from '../../../../test/eventually';

const pglite = serverEngines.find((engine) => engine.name === 'pglite');
let bench: ClientBench;
beforeAll(async () => {
  bench = await openClientBench(pglite!);
}, 60_000);
afterAll(() => bench?.close());

const shortTerms = { validation_interval_seconds: 3_600, validation_grace_seconds: 7_200 };
const count = (calls: string[], path: string) => calls.filter((each) => each === path).length;
const changesOf = (rig: { client: { on: (event: 'state', listener: (change: StateChange) => void) => unknown } }) => {
  const changes: StateChange[] = [];
  rig.client.on('state', (change) => changes.push(change));
  return changes;
};

describe('storage failures never undo the server’s answer', () => {
  it('obeys a kill order whose wipe fails: revoked, kill event, and a restart finds no license', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    const failing = failingStorage(createMemoryStorage());
    const rig = clientRig(bench, { storage: failing.storage });
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    const kills: KillOrder[] = [];
    const errors: unknown[] = [];
    rig.client.on('kill', (order) => kills.push(order));
    rig.client.on('error', (error) => errors.push(error));
    const revoked = await bench.admin.call('POST', `/licenses/${license.licenseId}/revoke`, { body: {}, query: { dry_run: 'false' }, key: freshKey() });
    expect(revoked.status, revoked.text).toBe(200);
    failing.failClear = true;
    expect(await rig.client.validateNow()).toBe('revoked');
    expect(kills).toHaveLength(1);
    expect(rig.client.entitlements()).toBeUndefined();
    expect(errors.length).toBeGreaterThan(0);
    // The record could not be deleted, but it no longer holds a credential.
    expect(decodeStoredLicense((await rig.storage.load())!)?.credential).toBeUndefined();
    await rig.client.stop();
    const restarted = rig.restart();
    restarted.network.down = true;
    expect(await restarted.client.start()).toBe('unlicensed');
  });

  it('locks on a verdict-1 answer even when the record cannot be saved', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    const failing = failingStorage(createMemoryStorage());
    let fingerprint = crypto.getRandomValues(new Uint8Array(32));
    const rig = clientRig(bench, { storage: failing.storage, overrides: { fingerprint: () => fingerprint } });
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    fingerprint = crypto.getRandomValues(new Uint8Array(32));
    failing.failSave = true;
    const changes = changesOf(rig);
    expect(await rig.client.validateNow()).toBe('locked');
    expect(changes.at(-1)?.reason).toBe('needs_reactivation');
    expect(rig.client.entitlements()).toBeUndefined();
    await rig.client.stop();
  });

  it('activates when the record cannot be saved: active this run, the failure reported, never stuck in activating', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    const failing = failingStorage(createMemoryStorage());
    failing.failSave = true;
    const rig = clientRig(bench, { storage: failing.storage });
    const errors: unknown[] = [];
    rig.client.on('error', (error) => errors.push(error));
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    expect(rig.client.entitlements()).toBeDefined();
    expect(errors).toHaveLength(1);
    await rig.client.stop();
  });
});

describe('fail-closed outcomes survive a restart', () => {
  it('keeps a verdict-1 lock across restarts (the stored ticket says needs_reactivation)', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    let fingerprint = crypto.getRandomValues(new Uint8Array(32));
    const original = fingerprint;
    const rig = clientRig(bench, { overrides: { fingerprint: () => fingerprint } });
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    fingerprint = crypto.getRandomValues(new Uint8Array(32));
    expect(await rig.client.validateNow()).toBe('locked');
    await rig.client.stop();
    // Same fingerprint as the credential's: only the stored verdict-1 ticket can lock it.
    const restarted = rig.restart({ fingerprint: original });
    restarted.network.down = true;
    const changes = changesOf(restarted);
    expect(await restarted.client.start()).toBe('locked');
    expect(changes[0]?.reason).toBe('needs_reactivation');
    expect(restarted.client.entitlements()).toBeUndefined();
    await restarted.client.stop();
  });

  it('re-announces restricted mode (verdict 2, version_out_of_scope) at a restart', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    const rig = clientRig(bench);
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    const scoped = await bench.admin.call('PATCH', `/licenses/${license.licenseId}`, { body: { version_scope_override: { min: '2.0.0' } }, key: freshKey() });
    expect(scoped.status, scoped.text).toBe(200);
    const changes = changesOf(rig);
    expect(await rig.client.validateNow()).toBe('active');
    expect(changes.at(-1)?.reason).toBe('version_out_of_scope');
    await rig.client.stop();
    const restarted = rig.restart();
    restarted.network.down = true;
    const restartChanges = changesOf(restarted);
    expect(await restarted.client.start()).toBe('active');
    expect(restartChanges.at(-1)).toMatchObject({ state: 'active', reason: 'version_out_of_scope' });
    await restarted.client.stop();
  });

  it('keeps a refusal (suspended license) across restarts until a validation succeeds', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    const rig = clientRig(bench);
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    const suspend = await bench.admin.call('PATCH', `/licenses/${license.licenseId}`, { body: { status: 'suspended' }, key: freshKey() });
    expect(suspend.status, suspend.text).toBe(200);
    expect(await rig.client.validateNow()).toBe('locked');
    await rig.client.stop();
    const offline = rig.restart();
    offline.network.down = true;
    const changes = changesOf(offline);
    expect(await offline.client.start()).toBe('locked');
    expect(changes[0]?.reason).toBe('refused');
    expect(offline.client.hasFeature('anything')).toBe(false);
    await offline.client.stop();
    const reinstate = await bench.admin.call('PATCH', `/licenses/${license.licenseId}`, { body: { status: 'active' }, key: freshKey() });
    expect(reinstate.status, reinstate.text).toBe(200);
    const online = rig.restart();
    expect(await online.client.start()).toBe('locked');
    online.scheduler.advance(0);
    await vi.waitFor(() => expect(online.client.state).toBe('active'), eventually);
    expect(decodeStoredLicense((await online.storage.load())!)?.refusedAt).toBeUndefined();
    await online.client.stop();
  });

  it('locks a record copied to another device at start (the credential names another fingerprint)', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    const rig = clientRig(bench);
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    await rig.client.stop();
    const copied = rig.restart({ fingerprint: crypto.getRandomValues(new Uint8Array(32)) });
    copied.network.down = true;
    const changes = changesOf(copied);
    expect(await copied.client.start()).toBe('locked');
    expect(changes[0]?.reason).toBe('needs_reactivation');
    expect(copied.client.entitlements()).toBeUndefined();
    await copied.client.stop();
  });
});

describe('activation and upgrades', () => {
  it('gives back the working license when a re-activation fails', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    const rig = clientRig(bench);
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    rig.network.down = true;
    await expect(rig.client.activate({ licenseKey: license.key })).rejects.toBeDefined();
    expect(rig.client.state).toBe('active');
    expect(rig.client.entitlements()).toBeDefined();
    // The schedule is back: the next validation goes out when it is due.
    rig.network.down = false;
    rig.scheduler.advance(3_600_000);
    await vi.waitFor(() => expect(count(rig.network.calls, '/v1/validate')).toBe(1), eventually);
    await rig.client.stop();
  });

  it('answers refresh_now with one validation a minute later, backing off while it repeats, and tells the app', async () => {
    const release = (await registerRelease(bench.admin, releaseBody(bench.admin.vendorA, { app_version: '1.4.0' }))).body.release;
    const clientInfo: ClientInfo = { ...defaultClientInfo, appVersion: '1.4.0', buildFingerprint: hexDecode(release.build_fingerprint as string) };
    const license = await issueClientLicense(bench, shortTerms);
    const rig = clientRig(bench, { overrides: { clientInfo } });
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    const marked = await bench.admin.call('POST', `/releases/${release.release_id as string}/mark-compromised`, { query: { dry_run: 'false' }, key: freshKey(), body: { action: 'force_upgrade' } });
    expect(marked.status, marked.text).toBe(200);
    const changes = changesOf(rig);
    expect(await rig.client.validateNow()).toBe('active');
    expect(changes.at(-1)).toMatchObject({ state: 'active', reason: 'upgrade_required', upgradeRequired: true });
    // Validation timers only (heartbeats are paced apart): 1 min, then 2 min, then 4 min.
    for (const [step, minutes] of [1, 2, 4].entries()) {
      rig.scheduler.advance(minutes * 60_000 - 1);
      expect(count(rig.network.calls, '/v1/validate')).toBe(step + 1);
      rig.scheduler.advance(1);
      await vi.waitFor(() => expect(count(rig.network.calls, '/v1/validate')).toBe(step + 2), eventually);
      await vi.waitFor(() => expect(changes.length).toBeGreaterThan(step + 1), eventually);
    }
    await rig.client.stop();
  });
});
