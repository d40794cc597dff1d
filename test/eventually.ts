/**
 * `vi.waitFor` options for a test that waits for a state the code reaches (an answer handled, a state
 * entered, a job finished). The deadline only bounds a failure, so it is generous: vitest's default of
 * one second made such waits race the clock on a loaded machine (a license client reached `locked`
 * 1.1 s after the test moved its clock, under CI load). Pass explicit options instead where a test
 * moves a clock inside the wait, since there the deadline decides how far the clock goes.
 *
 * @example
 * ```ts
 * rig.scheduler.advance(hour);
 * await vi.waitFor(() => expect(rig.client.state).toBe('grace'), eventually);
 * ```
 */
export const eventually = { timeout: 20_000, interval: 20 } as const;
