// Telemetry with consent and tier through the license client, against a real server on the client's clock:
// nothing is counted, stored or sent without consent; the tier gate is learnt from the ticket (key 16), so
// a license whose policy forbids telemetry sends nothing and keeps nothing; a window is sent once a ticket
// names a later server day (its block is the day's first, never a `t1.duplicate_window`); a block that
// could not be sent rejoins what was counted meanwhile; withdrawing consent drops the counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@tollgate/core';
import { decodeCanonical } from '@tollgate/core/cbor';
import { decodeStoredLicense } from '@tollgate/client-sdk';
import { issueClientLicense, openClientBench, type ClientBench, type IssuedLicense } from '../client/client-harness';
import { freshKey } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { allowFeatures, counterDelta, countersOf, rawRowsOf, telemetryEnv } from '../telemetry/telemetry-fixtures';
import { clientRig, type ClientRig } from './helpers';

const pglite = serverEngines.find((engine) => engine.name === 'pglite');
const day = 86_400;
// Noon UTC: a day's validations stay on one server day until the test moves the clock past midnight.
const clock = new ManualClock((Math.floor(Date.now() / 1000 / day) * day + day / 2) * 1000);
const serverDay = () => Math.floor(clock.now() / 1000 / day) * day;
let bench: ClientBench;

beforeAll(async () => {
  bench = await openClientBench(pglite!, telemetryEnv, { clock });
  await allowFeatures(bench.admin.sql, bench.admin.vendorA, ['export-pdf']);
}, 60_000);
afterAll(() => bench?.close());

/** The telemetry block (key 11) of the last validate request sent, if it had one. */
function lastBlock(rig: ClientRig): Map<number, unknown> | undefined {
  const body = rig.network.sent.get('/v1/validate')?.at(-1);
  if (body === undefined) throw new Error('no validate request was sent');
  const request = decodeCanonical(body) as Map<number, unknown>;
  return request.get(11) as Map<number, unknown> | undefined;
}

const storedUsage = async (rig: ClientRig) => decodeStoredLicense((await rig.storage.load())!)?.usage;

async function activated(telemetry: 't1' | 'off' = 't1'): Promise<{ rig: ClientRig; license: IssuedLicense; machineId: () => Promise<string> }> {
  const license = await issueClientLicense(bench, { telemetry });
  const rig = clientRig(bench, { clock, overrides: { telemetry: { allowedFeatures: ['export-pdf'] } } });
  await rig.client.activate({ licenseKey: license.key });
  const machineId = async () => {
    const { rows } = await bench.admin.sql.query<{ machine_id: string }>('SELECT machine_id FROM license_machines WHERE license_id = $1', [license.licenseId]);
    return rows[0]!.machine_id;
  };
  return { rig, license, machineId };
}

function useFor(rig: ClientRig, sessionMinutes: readonly number[], featureHits: number): void {
  for (const minutes of sessionMinutes) {
    const end = rig.client.startSession();
    rig.clock.advance(minutes * 60_000);
    end();
  }
  for (let hit = 0; hit < featureHits; hit += 1) rig.client.recordFeature('export-pdf');
}

describe('telemetry with consent and tier', () => {
  it('counts, stores and sends nothing without consent', async () => {
    const { rig } = await activated();
    useFor(rig, [10], 1);
    await rig.client.validateNow();
    clock.advance(day * 1000);
    await rig.client.validateNow();
    await rig.client.validateNow();
    expect(lastBlock(rig)).toBeUndefined();
    expect(await storedUsage(rig)).toBeUndefined();
    await rig.client.stop();
  });

  it('sends a window once a ticket names a later server day, as the day\'s first block, then starts the next window', async () => {
    const { rig, machineId } = await activated();
    await rig.client.setConsent(3);
    const before = await countersOf(bench.admin.sql, bench.productId);
    // Counted before any ticket: the tier is not known yet, so nothing goes with the first validation.
    useFor(rig, [2, 10], 2);
    await rig.client.validateNow();
    expect(lastBlock(rig)).toBeUndefined();
    const firstDay = serverDay();
    expect(await storedUsage(rig)).toMatchObject({ windowStart: firstDay, sessionCount: 2 });
    useFor(rig, [10, 200], 3);
    rig.client.recordFeature('not-allow-listed');
    await rig.client.validateNow();
    expect(lastBlock(rig)).toBeUndefined();

    clock.advance(day * 1000);
    await rig.client.validateNow();
    expect(lastBlock(rig)).toBeUndefined();
    await rig.client.validateNow();
    const block = lastBlock(rig)!;
    expect(block.get(0)).toBe(3);
    expect(block.get(1)).toBe(firstDay);
    expect(block.get(2)).toBe(4);
    expect(block.get(3)).toEqual([1, 2, 0, 1]);
    expect(block.get(4)).toEqual(new Map([['export-pdf', 5]]));
    expect(block.get(5)).toBe(1);
    expect(counterDelta(before, await countersOf(bench.admin.sql, bench.productId))).toEqual({ 't1.stored': 1 });
    expect(await rawRowsOf(bench.admin.sql, await machineId())).toMatchObject([{ session_count: 4, feature_hits: { 'export-pdf': 5 } }]);
    expect(await storedUsage(rig)).toMatchObject({ windowStart: serverDay(), sessionCount: 0 });

    // The same server day again: the new window waits for the next day (no second block, nothing dropped).
    useFor(rig, [1], 0);
    await rig.client.validateNow();
    await rig.client.validateNow();
    expect(lastBlock(rig)).toBeUndefined();
    expect(counterDelta(before, await countersOf(bench.admin.sql, bench.productId))).toEqual({ 't1.stored': 1 });

    await rig.client.setConsent(0);
    expect(decodeStoredLicense((await rig.storage.load())!)).toMatchObject({ consentVersion: 0 });
    expect(await storedUsage(rig)).toBeUndefined();
    clock.advance(day * 1000);
    await rig.client.validateNow();
    await rig.client.validateNow();
    expect(lastBlock(rig)).toBeUndefined();
    await rig.client.stop();
  });

  it('sends nothing, keeps nothing and trips no tier gate when the policy forbids telemetry, whatever the consent', async () => {
    const { rig } = await activated('off');
    await rig.client.setConsent(3);
    const before = await countersOf(bench.admin.sql, bench.productId);
    useFor(rig, [10], 1);
    await rig.client.validateNow();
    // The ticket carries no telemetry window: what was counted before it is dropped, and nothing more is counted.
    expect(await storedUsage(rig)).toBeUndefined();
    useFor(rig, [10], 1);
    clock.advance(day * 1000);
    await rig.client.validateNow();
    await rig.client.validateNow();
    expect(rig.network.sent.get('/v1/validate')!.every((body) => !(decodeCanonical(body) as Map<number, unknown>).has(11))).toBe(true);
    expect(await storedUsage(rig)).toBeUndefined();
    expect(counterDelta(before, await countersOf(bench.admin.sql, bench.productId))).toEqual({});
    await rig.client.stop();
  });

  it('stops collecting and drops the window when the policy is changed to forbid telemetry', async () => {
    const { rig, license } = await activated();
    await rig.client.setConsent(1);
    await rig.client.validateNow();
    useFor(rig, [10], 2);
    await rig.client.setConsent(1); // the same version again: persists what was counted
    expect(await storedUsage(rig)).toMatchObject({ sessionCount: 1 });
    const policy = await bench.admin.call('GET', `/policies/${license.policyId}`);
    const document = (policy.body as { policy: Record<string, unknown> }).policy;
    expect((await bench.admin.call('PATCH', `/policies/${license.policyId}`, { body: { ...document, telemetry: 'off' }, key: freshKey() })).status).toBe(200);
    clock.advance(day * 1000);
    await rig.client.validateNow();
    expect(lastBlock(rig)).toBeUndefined();
    expect(await storedUsage(rig)).toBeUndefined();
    useFor(rig, [10], 1);
    await rig.client.validateNow();
    expect(lastBlock(rig)).toBeUndefined();
    expect(await storedUsage(rig)).toBeUndefined();
    await rig.client.stop();
  });

  it('keeps a window whose validation failed and sends it, with what was counted meanwhile, once the server answers', async () => {
    const { rig } = await activated();
    await rig.client.setConsent(2);
    await rig.client.validateNow();
    useFor(rig, [10], 1);
    clock.advance(day * 1000);
    await rig.client.validateNow();
    rig.network.down = true;
    await rig.client.validateNow();
    // The failed request carried the window; the server never saw it.
    expect(lastBlock(rig)?.get(2)).toBe(1);
    useFor(rig, [45], 1);
    rig.network.down = false;
    await rig.client.validateNow();
    const block = lastBlock(rig)!;
    expect(block.get(2)).toBe(2);
    expect(block.get(3)).toEqual([0, 1, 1, 0]);
    expect(block.get(4)).toEqual(new Map([['export-pdf', 2]]));
    await rig.client.stop();
  });
});
