/**
 * Seats are exact under concurrency: 100 activations of distinct devices on a 3-seat license give exactly
 * 3 credentials and 97 answers 1001, on each engine (PGlite serialises its one connection, so there it
 * proves the logic, not the locking), on PostgreSQL, and across two server instances on one PostgreSQL
 * database. Concurrent activations of one fingerprint share one seat.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode } from '@tollgate/core';
import {
  expectClientError,
  issueClientLicense,
  newDevice,
  openClientBench,
  signedInAccount,
  startSecondInstance,
  verifyAsClient,
  type ClientBench,
  type RawAnswer,
} from './client-harness';
import { serverEngines } from '../helpers';

const postgres = serverEngines.find((engine) => engine.name === 'postgres');

/** Checks a race: exactly `seats` credentials on distinct machines, the rest 1001, and the table agrees. */
async function expectExactSeats(bench: ClientBench, licenseId: string, answers: readonly RawAnswer[], seats: number): Promise<void> {
  const granted = answers.filter((answer) => answer.status === 200);
  expect(granted).toHaveLength(seats);
  for (const answer of answers.filter((candidate) => candidate.status !== 200)) expectClientError(answer, 1001, 409);
  const machineIds = await Promise.all(granted.map(async (answer) => hexEncode((await verifyAsClient(bench, answer.bytes, 'machine-credential')).machineId)));
  const { rows } = await bench.admin.sql.query<{ machine_id: string }>("SELECT machine_id FROM license_machines WHERE license_id = $1 AND status = 'active' ORDER BY machine_id", [
    licenseId,
  ]);
  expect(rows.map((row) => row.machine_id)).toEqual([...machineIds].sort());
}

for (const engine of serverEngines) {
  describe(`activation seats under concurrency [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine);
    });
    afterAll(() => bench?.close());

    it('gives 100 parallel activations on 3 seats exactly 3 credentials; the rest get 1001', async () => {
      const license = await issueClientLicense(bench, { seats: 3 });
      const answers = await Promise.all(Array.from({ length: 100 }, () => bench.activate(newDevice(), { licenseKey: license.key })));
      await expectExactSeats(bench, license.licenseId, answers, 3);
    });

    it('gives 30 parallel activations of one fingerprint (30 device keys) one seat and one machine', async () => {
      const license = await issueClientLicense(bench, { seats: 2 });
      const first = newDevice();
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, n) =>
          bench.activate(n === 0 ? first : newDevice(first.fingerprint), {
            licenseKey: license.key,
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(30).fill(200));
      const machines = new Set(await Promise.all(answers.map(async (answer) => hexEncode((await verifyAsClient(bench, answer.bytes, 'machine-credential')).machineId))));
      expect(machines.size).toBe(1);
      const { rows } = await bench.admin.sql.query<{ count: string }>("SELECT count(*) AS count FROM license_machines WHERE license_id = $1 AND status = 'active'", [
        license.licenseId,
      ]);
      expect(Number(rows[0]!.count)).toBe(1);
    });
  });
}

describe.skipIf(postgres === undefined)('activation seats across two instances on one PostgreSQL database', () => {
  let bench: ClientBench;
  let secondUrl: string;
  beforeAll(async () => {
    bench = await openClientBench(postgres!);
    secondUrl = await startSecondInstance(bench);
  });
  afterAll(() => bench?.close());

  it('gives 100 parallel activations split over both instances on 3 seats exactly 3 credentials', async () => {
    const license = await issueClientLicense(bench, { seats: 3 });
    const answers = await Promise.all(Array.from({ length: 100 }, (_, n) => bench.activate(newDevice(), { licenseKey: license.key }, n % 2 === 0 ? {} : { url: secondUrl })));
    await expectExactSeats(bench, license.licenseId, answers, 3);
    // Both instances answered: each refused some and the seat holders verify against the one keyset.
    expect(answers.filter((answer, n) => n % 2 === 1 && answer.status === 409).length).toBeGreaterThan(0);
    expect(answers.filter((answer, n) => n % 2 === 0 && answer.status === 409).length).toBeGreaterThan(0);
  });

  it('gives an account with a device limit of 2 exactly 2 machines when 40 devices activate through both instances', async () => {
    const account = await signedInAccount(bench, { maxDevices: 2 });
    // Two licenses with plenty of seats: only the account's limit can stop them.
    await issueClientLicense(bench, { seats: 50 }, { account_id: account.accountId });
    await issueClientLicense(bench, { seats: 50 }, { account_id: account.accountId });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, n) => bench.activate(newDevice(), { accountToken: account.accessToken }, n % 2 === 0 ? {} : { url: secondUrl })),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(2);
    for (const answer of answers.filter((candidate) => candidate.status !== 200)) expectClientError(answer, 1001, 409);
    const { rows } = await bench.admin.sql.query<{ count: string }>("SELECT count(*) AS count FROM license_machines WHERE account_id = $1 AND status = 'active'", [
      account.accountId,
    ]);
    expect(Number(rows[0]!.count)).toBe(2);
  });
});
