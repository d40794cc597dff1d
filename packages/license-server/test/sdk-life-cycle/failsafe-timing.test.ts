// The license client judges its standing at call time and keeps its own pace: an expiry before the
// next refresh, a Retry-After of centuries, a restart offline with a stale feed (retried, not locked for
// good), a stored keyset the pins no longer accept, heartbeats paced by server time with their own
// backoff, a refused heartbeat, sealed assets after a downgrade, and an offline request on a licensed device.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeStoredLicense, type StateChange } from '@tollgate/client-sdk';
import { hexDecode, ManualClock, sealAsset } from '@tollgate/core';
import type { ClientInfo } from '@tollgate/core/license';
import { freshKey } from '../admin/admin-harness';
import { seedCatalog } from '../admin/admin-license-fixtures';
import { registerRelease, releaseBody } from '../admin/admin-releases-fixtures';
import { defaultClientInfo, issueClientLicense, openClientBench, type ClientBench } from '../client/client-harness';
import { serverEngines } from '../helpers';
import { clientRig } from './helpers';
import { eventually } from '../../../../test/eventually';

const pglite = serverEngines.find((engine) => engine.name === 'pglite');
let bench: ClientBench;
beforeAll(async () => {
  bench = await openClientBench(pglite!);
  await seedCatalog(bench.admin, bench.admin.vendorA, [
    { kind: 'feature', id: 'export.pdf' },
    { kind: 'feature', id: 'plain.feature' },
    { kind: 'tier', id: 'basic', features: ['export.pdf'] },
    { kind: 'tier', id: 'free', features: ['plain.feature'] },
  ]);
}, 60_000);
afterAll(() => bench?.close());

const hour = 3_600_000;
const shortTerms = { validation_interval_seconds: 3_600, validation_grace_seconds: 7_200 };
const count = (calls: string[], path: string) => calls.filter((each) => each === path).length;
/** Lets the client's pending promises settle (its calls run on the real network of the bench). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('the standing is judged at call time', () => {
  it('stops entitling the app when a deny license expires before its next refresh', async () => {
    const license = await issueClientLicense(bench, { validation_interval_seconds: 86_400, validation_grace_seconds: 3_600, expiry_behavior: 'deny' }, { expires_at: new Date(Date.now() + 600_000).toISOString() });
    const rig = clientRig(bench);
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    rig.network.down = true;
    rig.scheduler.advance(3 * hour);
    await vi.waitFor(() => expect(rig.client.state).toBe('locked'), eventually);
    expect(rig.client.entitlements()).toBeUndefined();
    await rig.client.stop();
  });

  it('caps Retry-After, so a 503 asking for centuries cannot keep the client in grace past its window', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    let lie = false;
    const fetchWithLie: typeof fetch = async (input, init) => {
      const path = new URL(typeof input === 'string' || input instanceof URL ? input : input.url).pathname;
      if (lie && path === '/v1/validate') return new Response('busy', { status: 503, headers: { 'retry-after': '9999999999' } });
      return fetch(input, init);
    };
    const rig = clientRig(bench, { overrides: { fetch: fetchWithLie } });
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    lie = true;
    rig.scheduler.advance(hour);
    await vi.waitFor(() => expect(rig.client.state).toBe('grace'), eventually);
    for (let step = 0; step < 6; step += 1) {
      rig.scheduler.advance(hour);
      await settle();
    }
    expect(rig.client.state).toBe('locked');
    expect(rig.client.entitlements()).toBeUndefined();
    await rig.client.stop();
  });
});

describe('a clock set back', () => {
  it('buys no time: with the server away, grace still runs out on the timers’ monotonic time', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    const rig = clientRig(bench);
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    await rig.client.stop();
    const restarted = rig.restart();
    restarted.clock.advance(-30 * 24 * hour);
    restarted.network.down = true;
    expect(await restarted.client.start()).toBe('needs_revalidation');
    // Refresh after 1 h and 2 h of grace: 6 hours of timers later the grace window is over.
    for (let step = 0; step < 24; step += 1) {
      restarted.scheduler.advance(15 * 60_000);
      await settle();
    }
    expect(count(restarted.network.calls, '/v1/validate')).toBeGreaterThan(5);
    expect(restarted.client.state).toBe('locked');
    expect(restarted.client.entitlements()).toBeUndefined();
    // The mark that moved is stored: a restart (clock still set back) is not usable again.
    await restarted.client.stop();
    const again = restarted.restart();
    again.network.down = true;
    expect(await again.client.start()).toBe('locked');
    await again.client.stop();
  });
});

describe('restore retries what another try can cure, and never rejects', () => {
  it('restarted offline with a stale feed, it keeps retrying and becomes active once the network is back', async () => {
    const license = await issueClientLicense(bench, { validation_interval_seconds: 30 * 86_400, validation_grace_seconds: 7 * 86_400 });
    const rig = clientRig(bench);
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    await rig.client.stop();
    const restarted = rig.restart();
    restarted.clock.advance(8 * 24 * hour);
    restarted.network.down = true;
    const changes: StateChange[] = [];
    restarted.client.on('state', (change) => changes.push(change));
    expect(await restarted.client.start()).toBe('locked');
    expect(changes[0]?.reason).toBe('verification_unavailable');
    expect(restarted.scheduler.pending).toBeGreaterThan(0);
    restarted.network.down = false;
    restarted.scheduler.advance(15 * 60_000);
    await vi.waitFor(() => expect(restarted.client.state).toBe('active'), eventually);
    expect(restarted.client.entitlements()).toBeDefined();
    await restarted.client.stop();
  });

  it('a second start that finds no record drops the earlier license and its timers', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    const rig = clientRig(bench);
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    await rig.storage.clear();
    expect(await rig.client.start()).toBe('unlicensed');
    expect(rig.scheduler.pending).toBe(0);
    expect(rig.client.entitlements()).toBeUndefined();
    await rig.client.stop();
  });

  it('start() resolves to a state when the stored keyset no longer verifies against the pins', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    const rig = clientRig(bench);
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    await rig.client.stop();
    const restarted = rig.restart({ pinnedRoots: ['11'.repeat(32)] });
    expect(await restarted.client.start()).toBe('locked');
    await restarted.client.stop();
  });
});

describe('heartbeats', () => {
  it('are paced by server time: a device clock 2 h ahead does not heartbeat every second', async () => {
    const license = await issueClientLicense(bench, { ...shortTerms, heartbeat_window_seconds: 900 });
    const rig = clientRig(bench, { clock: new ManualClock(Date.now() + 2 * hour) });
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    const timers = rig.scheduler.pending;
    rig.scheduler.advance(60_000);
    await vi.waitFor(() => expect(count(rig.network.calls, '/v1/heartbeat')).toBe(1), eventually);
    // The answer is handled once the pacer has set its timer again.
    await vi.waitFor(() => expect(rig.scheduler.pending).toBe(timers), eventually);
    expect(rig.scheduler.nextDelay()).toBeLessThan(hour);
    for (let step = 0; step < 20; step += 1) {
      rig.scheduler.advance(1_000);
      await settle();
    }
    expect(count(rig.network.calls, '/v1/heartbeat')).toBe(1);
    await rig.client.stop();
  });

  it('back off while the server is down', async () => {
    const license = await issueClientLicense(bench, { ...shortTerms, heartbeat_window_seconds: 900 });
    const rig = clientRig(bench);
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    rig.network.down = true;
    for (let step = 0; step < 120; step += 1) {
      rig.scheduler.advance(5_000);
      await settle();
    }
    // Ten minutes down: exponential backoff from 5 s makes about eight attempts, not a hundred.
    expect(count(rig.network.calls, '/v1/heartbeat')).toBeGreaterThan(0);
    expect(count(rig.network.calls, '/v1/heartbeat')).toBeLessThan(12);
    await rig.client.stop();
  });

  it('ask for a validation when a heartbeat answer is refused (a replayed answer)', async () => {
    const license = await issueClientLicense(bench, { ...shortTerms, heartbeat_window_seconds: 900 });
    const rig = clientRig(bench);
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    let first: Uint8Array | undefined;
    rig.network.tamper = (path, body) => {
      if (path !== '/v1/heartbeat') return undefined;
      if (first === undefined) first = body;
      return first;
    };
    // The first heartbeat's answer is handled once the pacer has set its timer again: until then the
    // earliest timer is the validation's, and moving the clock to it would skip the second heartbeat.
    const timers = rig.scheduler.pending;
    rig.scheduler.advance(60_000);
    await vi.waitFor(() => expect(count(rig.network.calls, '/v1/heartbeat')).toBe(1), eventually);
    await vi.waitFor(() => expect(rig.scheduler.pending).toBe(timers), eventually);
    expect(rig.scheduler.nextDelay()).toBeGreaterThan(0);
    rig.scheduler.advance(rig.scheduler.nextDelay()!);
    await vi.waitFor(() => expect(count(rig.network.calls, '/v1/heartbeat')).toBe(2), eventually);
    await vi.waitFor(() => expect(rig.scheduler.nextDelay()).toBe(0), eventually);
    rig.scheduler.advance(0);
    await vi.waitFor(() => expect(count(rig.network.calls, '/v1/validate')).toBe(1), eventually);
    await rig.client.stop();
  });
});

describe('assets and offline requests', () => {
  it('refuses to build an offline request while a license is stored, and keeps the credential', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    const rig = clientRig(bench);
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    await expect(rig.client.createOfflineRequest(license.key)).rejects.toThrow(/deactivate/);
    expect(decodeStoredLicense((await rig.storage.load())!)?.credential).toBeInstanceOf(Uint8Array);
    expect(rig.client.state).toBe('active');
    expect(rig.client.entitlements()).toBeDefined();
    await rig.client.stop();
  });

  // Last: once a release is registered, unregistered builds (the default client info) are refused.
  it('keeps a premium asset sealed after a downgrade: the credential’s old keys are not used', async () => {
    const license = await issueClientLicense(bench, { ...shortTerms, tier: 'basic', seats: 5 });
    const release = (await registerRelease(bench.admin, releaseBody(bench.admin.vendorA))).body.release;
    const pdfKey = hexDecode((await bench.admin.call('POST', '/asset-keks', { key: freshKey(), body: { release_id: release.release_id, feature_id: 'export.pdf' } })).body.key_hex);
    const clientInfo: ClientInfo = { ...defaultClientInfo, appVersion: release.app_version as string, buildFingerprint: hexDecode(release.build_fingerprint as string) };
    const rig = clientRig(bench, { overrides: { clientInfo } });
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    const asset = new TextEncoder().encode('premium');
    const sealed = sealAsset({ key: pdfKey, productId: bench.productId, releaseId: hexDecode(release.release_id as string), feature: 'export.pdf', asset });
    expect(rig.client.openSealedAsset(sealed, 'export.pdf')).toEqual(asset);
    const changed = await bench.admin.call('POST', `/licenses/${license.licenseId}/change-tier`, { body: { tier: 'free' }, key: freshKey() });
    expect(changed.status, changed.text).toBe(200);
    expect(await rig.client.validateNow()).toBe('active');
    expect(rig.client.hasFeature('export.pdf')).toBe(false);
    expect(() => rig.client.openSealedAsset(sealed, 'export.pdf')).toThrow(/export\.pdf/);
    await rig.client.stop();
  });
});
