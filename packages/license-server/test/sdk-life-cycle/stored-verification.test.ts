// A device activated against a real license server restarts after every signing epoch that existed at
// its activation has expired (the server's clock moved past their notAfter): the server never reissues
// a machine credential, so the stored one must keep verifying at its own signed time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeStoredLicense, verifyKeyset, type StateChange } from '@tollgate/client-sdk';
import { ManualClock } from '@tollgate/core';
import { issueClientLicense, openClientBench, type ClientBench } from '../client/client-harness';
import { serverEngines } from '../helpers';
import { clientRig } from './helpers';

const pglite = serverEngines.find((engine) => engine.name === 'pglite');
const day = 86_400;
const serverClock = new ManualClock(Date.now());
let bench: ClientBench;

beforeAll(async () => {
  bench = await openClientBench(pglite!, {}, { clock: serverClock });
}, 60_000);
afterAll(() => bench?.close());

describe('a stored credential after its signing epoch expired', () => {
  it('restarts active (online) once every epoch of its activation has expired', async () => {
    // Validation due only after 300 days: the license itself is current at the restart.
    const license = await issueClientLicense(bench, { validation_interval_seconds: 300 * day, validation_grace_seconds: 30 * day });
    const rig = clientRig(bench, { clock: new ManualClock(serverClock.now()) });
    expect(await rig.client.start()).toBe('unlicensed');
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    await rig.client.stop();

    const stored = decodeStoredLicense((await rig.storage.load())!);
    const pins = bench.admin.server.context.pinnedRoots;
    const keyset = verifyKeyset(stored!.keyset!, pins, Math.floor(rig.clock.now() / 1000));
    const lastNotAfter = Math.max(...[...keyset.epochs.values()].map((epoch) => epoch.notAfter));
    expect(keyset.epochs.size).toBeGreaterThan(0);

    // Server and device both move a day past the end of every epoch the device knew.
    const restartAt = (lastNotAfter + day) * 1000;
    serverClock.advance(restartAt - serverClock.now());
    rig.clock.advance(restartAt - rig.clock.now());
    const restarted = rig.restart();
    const changes: StateChange[] = [];
    restarted.client.on('state', (change) => changes.push(change));
    expect(await restarted.client.start()).toBe('active');
    expect(changes.some((change) => change.reason === 'verification_failed')).toBe(false);
    expect(restarted.client.entitlements()).toBeDefined();
    // It reached the server for the keyset and feed (which still list the expired epoch).
    expect(restarted.network.calls).toContain('/v1/keys');
    await restarted.client.stop();
  });
});
