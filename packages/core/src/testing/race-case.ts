import { it } from 'vitest';

/** What a fixture says about where its store runs, so race cases know whether they can prove anything. */
export interface RaceFixture {
  /**
   * The database engine (`openTestDatabase(...)` spread into the fixture provides it). `pglite` runs every
   * statement on one connection, so race cases are skipped there, with the reason shown. Leave it out for
   * a store with real concurrency.
   */
  readonly engine?: string;
}

const provesNothingOnPglite = 'PGlite runs every statement on one connection, so it would prove nothing; set TOLLGATE_TEST_DATABASE_URL to run it on PostgreSQL';

/** Why a race case is skipped on PGlite (shown by the reporter). */
export const singleConnectionSkipReason = `race case: ${provesNothingOnPglite}`;

/**
 * Registers a race case: concurrent calls whose outcome only a store with real concurrency can get
 * wrong. It runs on every fixture except a single-connection one (`engine: 'pglite'`), where it is
 * skipped with {@link singleConnectionSkipReason} as its note, and one warning on stderr per test worker
 * (default reporters show skip notes only in verbose mode).
 *
 * @param title - The case's title.
 * @param fixture - The suite's fixture getter.
 * @param body - The case.
 * @example
 * ```ts
 * import { raceCase } from '@tollgate/core/testing';
 * raceCase('lets exactly one of 20 parallel rotations through', fixture, async () => {
 *   const outcomes = await Promise.all(Array.from({ length: 20 }, () => fixture().merchants.rotateCredential(params)));
 *   expect(outcomes.filter((outcome) => outcome.kind === 'rotated')).toHaveLength(1);
 * });
 * ```
 */
export function raceCase(title: string, fixture: () => RaceFixture, body: () => Promise<void>): void {
  it(title, async (context) => {
    if (fixture().engine === 'pglite') {
      // The skip note shows in verbose reporters only; say it once on stderr too, so no run hides it.
      if (!warnedAboutSkippedRaces) console.warn(`[tollgate] Store race cases skipped: ${provesNothingOnPglite}.`);
      warnedAboutSkippedRaces = true;
      context.skip(singleConnectionSkipReason);
    }
    await body();
  });
}

let warnedAboutSkippedRaces = false;
