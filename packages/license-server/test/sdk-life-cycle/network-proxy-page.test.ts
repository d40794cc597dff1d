// The license client behind a proxy that answers 200 with an HTML page (a TLS-inspecting proxy, a
// captive portal, a WAF): that says nothing about the license, so the client rides it out like an
// unreachable server (grace) and recovers once real answers come back (F13). A signed answer that
// fails verification still locks at once (life-cycle.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usableStates, type StateChange } from '@tollgate/client-sdk';
import { issueClientLicense, openClientBench, type ClientBench } from '../client/client-harness';
import { serverEngines } from '../helpers';
import { clientRig } from './helpers';

const pglite = serverEngines.find((engine) => engine.name === 'pglite');
let bench: ClientBench;

beforeAll(async () => {
  bench = await openClientBench(pglite!);
}, 60_000);
afterAll(() => bench?.close());

const hour = 3_600_000;
const shortTerms = { validation_interval_seconds: 3_600, validation_grace_seconds: 7_200 };
const proxyPage = new TextEncoder().encode('<html><body>Sign in to the corporate proxy to continue.</body></html>');

describe('a 200 answer that is no signed envelope', () => {
  it('keeps the license usable (grace), not locked, and validates again once the proxy lets answers through', async () => {
    const license = await issueClientLicense(bench, shortTerms);
    const rig = clientRig(bench);
    expect(await rig.client.start()).toBe('unlicensed');
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    const changes: StateChange[] = [];
    rig.client.on('state', (change) => changes.push(change));
    rig.network.tamper = (path) => (path === '/v1/validate' ? proxyPage : undefined);
    // Due for validation: the proxy page answers, and the client falls back on its grace window.
    // (A little past the hour: the manual clock started before the server stamped the activation.)
    rig.scheduler.advance(1.1 * hour);
    expect(await rig.client.validateNow()).toBe('grace');
    expect(rig.network.calls.filter((path) => path === '/v1/validate').length).toBeGreaterThan(0);
    expect(changes.map((change) => change.state)).not.toContain('locked');
    expect(usableStates.has(rig.client.state)).toBe(true);
    expect(rig.client.entitlements()).toBeDefined();
    rig.network.tamper = undefined;
    expect(await rig.client.validateNow()).toBe('active');
    await rig.client.stop();
  });
});
