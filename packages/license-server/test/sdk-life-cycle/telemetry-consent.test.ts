// Telemetry with consent through the license client: nothing is counted, stored or sent without
// consent; with it, validate carries one bucketed block for the window and the next window starts empty;
// withdrawing consent drops what was counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCanonical } from '@tollgate/core';
import { decodeStoredLicense } from '@tollgate/client-sdk';
import { issueClientLicense, openClientBench, type ClientBench } from '../client-harness';
import { serverEngines } from '../helpers';
import { clientRig, type ClientRig } from './helpers';

const pglite = serverEngines.find((engine) => engine.name === 'pglite');
let bench: ClientBench;

beforeAll(async () => {
  bench = await openClientBench(pglite!);
}, 60_000);
afterAll(() => bench?.close());

/** The telemetry block (key 11) of the last validate request sent, if it had one. */
function lastBlock(rig: ClientRig): Map<number, unknown> | undefined {
  const body = rig.network.sent.get('/v1/validate')?.at(-1);
  if (body === undefined) throw new Error('no validate request was sent');
  const request = decodeCanonical(body) as Map<number, unknown>;
  return request.get(11) as Map<number, unknown> | undefined;
}

async function activated(): Promise<ClientRig> {
  const license = await issueClientLicense(bench, { telemetry: 't1' });
  const rig = clientRig(bench, { overrides: { telemetry: { allowedFeatures: ['export-pdf'] } } });
  await rig.client.activate({ licenseKey: license.key });
  return rig;
}

describe('telemetry with consent', () => {
  it('counts, stores and sends nothing without consent', async () => {
    const rig = await activated();
    const end = rig.client.startSession();
    rig.clock.advance(10 * 60_000);
    end();
    rig.client.recordFeature('export-pdf');
    await rig.client.validateNow();
    expect(lastBlock(rig)).toBeUndefined();
    expect(decodeStoredLicense((await rig.storage.load())!)?.usage).toBeUndefined();
    await rig.client.stop();
  });

  it('sends one bucketed block per window with consent, then starts an empty window; withdrawing consent drops the counts', async () => {
    const rig = await activated();
    await rig.client.setConsent(3);
    for (const minutes of [2, 10, 10, 200]) {
      const end = rig.client.startSession();
      rig.clock.advance(minutes * 60_000);
      end();
    }
    for (let hit = 0; hit < 5; hit += 1) rig.client.recordFeature('export-pdf');
    rig.client.recordFeature('not-allow-listed');
    await rig.client.validateNow();
    const block = lastBlock(rig)!;
    expect(block.get(0)).toBe(3);
    expect(block.get(2)).toBe(4);
    expect(block.get(3)).toEqual([1, 2, 0, 1]);
    expect(block.get(4)).toEqual(new Map([['export-pdf', 5]]));
    expect(block.get(5)).toBe(1);
    // The window was sent: the next validation has nothing to carry.
    await rig.client.validateNow();
    expect(lastBlock(rig)).toBeUndefined();

    rig.client.recordFeature('export-pdf');
    await rig.client.setConsent(0);
    await rig.client.validateNow();
    expect(lastBlock(rig)).toBeUndefined();
    expect(decodeStoredLicense((await rig.storage.load())!)).toMatchObject({ consentVersion: 0 });
    expect(decodeStoredLicense((await rig.storage.load())!)?.usage).toBeUndefined();
    await rig.client.stop();
  });
});
