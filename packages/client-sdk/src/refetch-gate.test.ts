import { describe, expect, it } from 'vitest';
import { ManualClock } from '@tollgate/core';
import { RefetchGate } from './refetch-gate';

/** A task whose end the test decides, counting its starts. */
function controlledTask() {
  let starts = 0;
  let finish: (value: string) => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const task = () => {
    starts += 1;
    return new Promise<string>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return { task, starts: () => starts, finish: (value: string) => finish(value), fail: (error: Error) => fail(error) };
}

describe('RefetchGate', () => {
  it('shares one run between concurrent callers, then turns callers away for the interval after its start', async () => {
    const clock = new ManualClock(1_000_000);
    const gate = new RefetchGate<string>(clock, 30);
    const run = controlledTask();
    const callers = Array.from({ length: 100 }, () => gate.enter(run.task));
    expect(gate.state().name).toBe('in_flight');
    await Promise.resolve();
    run.finish('keyset');
    const results = await Promise.all(callers.map((admission) => (admission.admitted ? admission.result : Promise.reject(new Error('turned away')))));
    expect(results).toEqual(Array.from({ length: 100 }, () => 'keyset'));
    expect(run.starts()).toBe(1);

    clock.advance(10_000);
    expect(gate.state()).toMatchObject({ name: 'cooling', until: 1_000 + 30 });
    expect(gate.enter(run.task)).toEqual({ admitted: false, retryAfterSeconds: 20 });
    clock.advance(19_999);
    expect(gate.enter(run.task)).toEqual({ admitted: false, retryAfterSeconds: 1 });
    expect(run.starts()).toBe(1);
    clock.advance(1);
    const next = gate.enter(run.task);
    expect(next.admitted).toBe(true);
    await Promise.resolve();
    expect(run.starts()).toBe(2);
  });

  it('counts a failed run against the interval too, and hands its failure to every caller', async () => {
    const clock = new ManualClock(1_000_000);
    const gate = new RefetchGate<string>(clock, 30);
    const run = controlledTask();
    const [first, second] = [gate.enter(run.task), gate.enter(run.task)];
    await Promise.resolve();
    run.fail(new Error('ECONNREFUSED'));
    for (const admission of [first, second]) {
      expect(admission.admitted).toBe(true);
      if (admission.admitted) await expect(admission.result).rejects.toThrow('ECONNREFUSED');
    }
    expect(gate.enter(run.task)).toEqual({ admitted: false, retryAfterSeconds: 30 });
    expect(run.starts()).toBe(1);
  });

  it('measures the interval from the start, so a slow run does not stretch it', async () => {
    const clock = new ManualClock(1_000_000);
    const gate = new RefetchGate<string>(clock, 30);
    const run = controlledTask();
    const admission = gate.enter(run.task);
    await Promise.resolve();
    clock.advance(25_000);
    run.finish('late');
    expect(admission.admitted && (await admission.result)).toBe('late');
    expect(gate.enter(run.task)).toEqual({ admitted: false, retryAfterSeconds: 5 });
  });

  it('ends the cooling when the clock is set back before the last start', async () => {
    const clock = new ManualClock(1_000_000);
    const gate = new RefetchGate<string>(clock, 30);
    const run = controlledTask();
    const admission = gate.enter(run.task);
    await Promise.resolve();
    run.finish('done');
    expect(admission.admitted && (await admission.result)).toBe('done');
    expect(gate.state().name).toBe('cooling');
    clock.set(1_000_000 - 86_400_000);
    expect(gate.state().name).toBe('idle');
    expect(gate.enter(run.task).admitted).toBe(true);
  });

  it('refuses an interval that is not a whole number of seconds', () => {
    expect(() => new RefetchGate(new ManualClock(0), 1.5)).toThrow(TypeError);
    expect(() => new RefetchGate(new ManualClock(0), -1)).toThrow(TypeError);
  });
});
