import { afterAll, beforeAll, beforeEach, describe } from 'vitest';

/** What a conformance suite opens once per run: the implementation under test plus its lifecycle. */
export interface ConformanceFixture {
  /** Restores an empty state; called before every test when present. */
  reset?(): Promise<void>;
  /** Releases the fixture; called once after the suite. */
  close?(): Promise<void>;
}

/** Options every conformance suite takes. */
export interface ConformanceSuiteOptions<Fixture extends ConformanceFixture> {
  /** Names the implementation in test titles, e.g. `pglite` or `my-redis-queue`. */
  name: string;
  /** Opens the implementation under test (once per suite). */
  open(): Promise<Fixture>;
}

/**
 * The runner behind every conformance suite: one vitest `describe` titled `<suite> [<name>]` that
 * opens the fixture before its tests, resets it before each test and closes it after. `define`
 * registers the tests and reads the open fixture through the getter it receives. Use it to write
 * suites for further ports.
 *
 * @param suite - what is being checked, e.g. `JobQueue`
 * @param options - the implementation's name and its `open()`
 * @param define - registers `it(...)` cases; call `fixture()` inside them
 *
 * @example
 * ```ts
 * import { describeConformance } from '@tollgate/core/testing';
 * import { it, expect } from 'vitest';
 * export function describeClockConformance(options) {
 *   describeConformance('Clock', options, (fixture) => {
 *     it('never goes backwards', () => { const { clock } = fixture(); expect(clock.now()).toBeLessThanOrEqual(clock.now()); });
 *   });
 * }
 * ```
 */
export function describeConformance<Fixture extends ConformanceFixture>(
  suite: string,
  options: ConformanceSuiteOptions<Fixture>,
  define: (fixture: () => Fixture) => void,
): void {
  describe(`${suite} [${options.name}]`, () => {
    let current: Fixture | undefined;
    beforeAll(async () => {
      current = await options.open();
    });
    afterAll(async () => {
      await current?.close?.();
      current = undefined;
    });
    beforeEach(async () => {
      await current?.reset?.();
    });
    define(() => {
      if (current === undefined) throw new Error(`The ${suite} fixture "${options.name}" is not open.`);
      return current;
    });
  });
}
