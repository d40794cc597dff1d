/**
 * The configurable budgets of `POST /v1/validate` (beyond the spec, which limits only login): per license
 * and per client address, each answering 1005 (429) with `retry_after` and a matching `Retry-After`.
 * Each budget gets its own server so the other one stays out of the way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newDevice, openClientBench, type ClientBench, type RawAnswer } from './client-harness';
import { errorOf, licensedDevice, ticketOf } from './client-session-helpers';
import { serverEngines } from '../helpers';

function expectRateLimited(answer: RawAnswer, windowSeconds: number, about: RegExp): void {
  expect(answer.status).toBe(429);
  const error = errorOf(answer);
  expect(error.code).toBe(1005);
  expect(error.message).toMatch(about);
  expect(error.retryAfter).toBeGreaterThanOrEqual(1);
  expect(error.retryAfter).toBeLessThanOrEqual(windowSeconds);
  expect(answer.headers.get('retry-after')).toBe(String(error.retryAfter));
}

for (const engine of serverEngines) {
  describe(`POST /v1/validate: per-license budget [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine, {
        LICENSE_RATE_LIMIT_PER_LICENSE: '3/600',
      });
    }, 120_000);
    afterAll(() => bench?.close());

    it('answers 1005 once a license spent its budget, while another license keeps validating', async () => {
      const busy = await licensedDevice(bench);
      const calm = await licensedDevice(bench);
      for (let n = 0; n < 3; n += 1) await ticketOf(bench, await bench.validate(busy.device, busy.seat));
      expectRateLimited(await bench.validate(busy.device, busy.seat), 600, /license/);
      await ticketOf(bench, await bench.validate(calm.device, calm.seat));
    });

    it('spends a license’s budget only on proven requests: forged proofs naming it cannot exhaust it', async () => {
      const target = await licensedDevice(bench);
      const stranger = newDevice();
      for (let n = 0; n < 6; n += 1) {
        const forged = await bench.validate(target.device, target.seat, {
          signer: stranger.signer,
        });
        expect([forged.status, errorOf(forged).code]).toEqual([401, 1000]);
      }
      await ticketOf(bench, await bench.validate(target.device, target.seat));
    });
  });

  describe(`POST /v1/validate: per-address budget [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine, {
        LICENSE_RATE_LIMIT_PER_ADDRESS: '4/600',
      });
    }, 120_000);
    afterAll(() => bench?.close());

    it('answers 1005 to an address over its budget, whatever the license, before reading the request', async () => {
      const one = await licensedDevice(bench);
      const two = await licensedDevice(bench);
      await ticketOf(bench, await bench.validate(one.device, one.seat));
      await ticketOf(bench, await bench.validate(two.device, two.seat));
      await ticketOf(bench, await bench.validate(one.device, one.seat));
      await ticketOf(bench, await bench.validate(two.device, two.seat));
      expectRateLimited(await bench.validate(one.device, one.seat), 600, /address/);
      expectRateLimited(await bench.validate(two.device, two.seat), 600, /address/);
      // Other routes keep their own budgets: heartbeats and activations of the address still pass.
      expect((await bench.heartbeat(one.device, one.seat)).status).toBe(200);
    });
  });
}
