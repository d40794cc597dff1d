// Air-gapped activation with the license client: the device builds a request without network, a
// connected machine relays it, the device imports the answer verified against its pins alone, and a
// restart without network verifies the stored credential with the answer's certificates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayOfflineRequest } from '@tollgate/client-sdk';
import { issueClientLicense, openClientBench, type ClientBench } from '../client/client-harness';
import { serverEngines } from '../helpers';
import { clientRig } from './helpers';

const pglite = serverEngines.find((engine) => engine.name === 'pglite');
let bench: ClientBench;

beforeAll(async () => {
  bench = await openClientBench(pglite!);
}, 60_000);
afterAll(() => bench?.close());

describe('offline activation through the license client', () => {
  it('builds the request offline, imports the relayed answer offline, and restarts offline', async () => {
    const license = await issueClientLicense(bench);
    const device = clientRig(bench);
    device.network.down = true;
    const request = await device.client.createOfflineRequest(license.key);
    expect(device.network.calls).toEqual([]);
    expect(await device.client.start()).toBe('unlicensed');

    // On the connected machine.
    const answer = await relayOfflineRequest({ baseUrl: bench.url }, request);

    expect(await device.client.importOfflineAnswer(answer)).toBe('active');
    expect(device.client.entitlements()).toBeDefined();
    expect(device.network.calls.filter((path) => path !== '/v1/validate' && path !== '/v1/keys' && path !== '/v1/revocations')).toEqual([]);
    await device.client.stop();

    const restarted = device.restart();
    restarted.network.down = true;
    expect(await restarted.client.start()).toBe('active');
    await restarted.client.stop();
  });

  it('refuses an answer for another device, an answer imported after valid_until, and an import with no request pending', async () => {
    const license = await issueClientLicense(bench, { seats: 5 });
    const first = clientRig(bench);
    const second = clientRig(bench);
    const firstAnswer = await relayOfflineRequest({ baseUrl: bench.url }, await first.client.createOfflineRequest(license.key));
    await second.client.createOfflineRequest(license.key);
    await expect(second.client.importOfflineAnswer(firstAnswer)).rejects.toMatchObject({ code: 'nonce_mismatch' });
    expect(second.client.state).toBe('unlicensed');

    const late = clientRig(bench);
    const lateAnswer = await relayOfflineRequest({ baseUrl: bench.url }, await late.client.createOfflineRequest(license.key));
    late.clock.advance(8 * 86_400_000);
    await expect(late.client.importOfflineAnswer(lateAnswer)).rejects.toThrow(/imported by/);

    await expect(clientRig(bench).client.importOfflineAnswer(firstAnswer)).rejects.toThrow(/No offline request/);
    expect(await first.client.importOfflineAnswer(firstAnswer)).toBe('active');
    for (const rig of [first, second, late]) await rig.client.stop();
  });
});
