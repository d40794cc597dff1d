// A device whose clock was once set far ahead (years past every epoch) stored that time as its clock
// mark. Back on the right time, it must still restart from its record and validate: stored artifacts
// verify at their own signed time, fresh answers at the device's clock, not at the far-future mark.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeStoredLicense, encodeStoredLicense } from '@tollgate/client-sdk';
import { issueClientLicense, openClientBench, type ClientBench } from '../client/client-harness';
import { serverEngines } from '../helpers';
import { clientRig } from './helpers';
import { eventually } from '../../../../test/eventually';

const pglite = serverEngines.find((engine) => engine.name === 'pglite');
const day = 86_400;
let bench: ClientBench;

beforeAll(async () => {
  bench = await openClientBench(pglite!);
}, 60_000);
afterAll(() => bench?.close());

describe('a clock mark far in the future', () => {
  it('does not brick the install: the restart verifies the stored record and the next validation succeeds', async () => {
    const license = await issueClientLicense(bench, { validation_interval_seconds: 3_600, validation_grace_seconds: 7_200 });
    const rig = clientRig(bench);
    expect(await rig.client.activate({ licenseKey: license.key })).toBe('active');
    await rig.client.stop();

    // The mark a failed validation persisted while the clock stood ten years ahead.
    const stored = decodeStoredLicense((await rig.storage.load())!)!;
    const farAhead = Math.floor(rig.clock.now() / 1000) + 3650 * day;
    await rig.storage.save(encodeStoredLicense({ ...stored, clockMark: farAhead }));

    const restarted = rig.restart();
    const reasons: (string | undefined)[] = [];
    restarted.client.on('state', (change) => reasons.push(change.reason));
    // Judged at the mark, the license looks out of grace; but the record verifies, so it validates.
    await restarted.client.start();
    expect(reasons).not.toContain('verification_failed');
    restarted.scheduler.advance(0);
    await vi.waitFor(() => expect(restarted.network.calls).toContain('/v1/validate'), eventually);
    await vi.waitFor(() => expect(restarted.client.state).toBe('active'), eventually);
    // The server's time replaced the far-future mark.
    expect(decodeStoredLicense((await restarted.storage.load())!)!.clockMark).toBeLessThan(farAhead);
    await restarted.client.stop();
  });
});
