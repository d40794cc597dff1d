/**
 * Environment variable naming the current test run (set by the vitest global setup). Scratch databases
 * created under it carry it in their names, and the run's global teardown drops them all at once.
 */
export const testRunIdVariable = 'TOLLGATE_TEST_RUN_ID';

/** A whole database on a PostgreSQL server, for a test that runs servers or processes on its own URL. */
export interface ScratchDatabase {
  /** Its name: `<prefix>_r<run id>_<random>` inside a test run, `<prefix>_<random>` outside one. */
  readonly name: string;
  /** Its URL: the admin URL with the database name replaced. */
  readonly url: string;
  /**
   * Outside a test run, drops it now. Inside one, leaves it to the run's global teardown
   * ({@link dropScratchDatabases}): `DROP DATABASE` waits for a checkpoint that fsyncs every file written
   * since the last one, which took over a minute on a loaded machine while other files created databases,
   * and an `afterAll` must not wait for that.
   */
  drop(): Promise<void>;
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

async function withAdmin<T>(adminUrl: string, run: (client: import('pg').Client) => Promise<T>): Promise<T> {
  // Loaded lazily: pg is an optional peer dependency, needed only with a server.
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

const namePattern = /^[a-z][a-z0-9_]{0,30}$/;
const runIdPattern = /^[0-9a-f]{8,16}$/;

/** The run id from the environment, when it is one. */
function currentRunId(environment: Record<string, string | undefined>): string | undefined {
  const runId = environment[testRunIdVariable];
  return runId !== undefined && runIdPattern.test(runId) ? runId : undefined;
}

/**
 * Creates an empty database with a random name on the PostgreSQL server of `adminUrl`.
 *
 * @param adminUrl - A server URL whose user may create databases.
 * @param prefix - Lower-case letters, digits and `_`, starting with a letter (at most 31 characters).
 * @param environment - Where the run id is read (default `process.env`).
 * @returns The database: its name, URL and `drop()`.
 * @throws TypeError for a prefix that is not a plain identifier.
 * @example
 * ```ts
 * import { createScratchDatabase } from '@tollgate/core/testing';
 * const database = await createScratchDatabase('postgres://postgres@127.0.0.1:5432/test', 'tollgate_crash');
 * await database.drop();
 * ```
 */
export async function createScratchDatabase(adminUrl: string, prefix: string, environment: Record<string, string | undefined> = process.env): Promise<ScratchDatabase> {
  if (!namePattern.test(prefix)) throw new TypeError(`A scratch database prefix is a plain lower-case identifier, not "${prefix}".`);
  const runId = currentRunId(environment);
  const name = `${prefix}_${runId === undefined ? '' : `r${runId}_`}${randomHex(6)}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (runId !== undefined) return;
      await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * Drops every scratch database of the test run `runId` (the global teardown's job), closing what is
 * still connected to them.
 *
 * @param adminUrl - The server the run created them on.
 * @param runId - The run's id ({@link testRunIdVariable}).
 * @param options - `concurrency`: drops under way at once (default 6).
 * @returns The names dropped.
 * @throws TypeError for a run id that is not 8 to 16 lower-case hex digits.
 * @example
 * ```ts
 * import { dropScratchDatabases } from '@tollgate/core/testing';
 * const dropped = await dropScratchDatabases(process.env.TOLLGATE_TEST_DATABASE_URL!, process.env.TOLLGATE_TEST_RUN_ID!);
 * ```
 */
export async function dropScratchDatabases(adminUrl: string, runId: string, options: { concurrency?: number } = {}): Promise<string[]> {
  if (!runIdPattern.test(runId)) throw new TypeError(`A test run id is 8 to 16 lower-case hex digits, not "${runId}".`);
  const names = await withAdmin(adminUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1 ORDER BY datname`, [`%\\_r${runId}\\_%`]);
    return rows.map((row) => row.datname);
  });
  // Each DROP waits for a checkpoint and removes its files: several at once overlap those waits (a run
  // leaves about a hundred and fifty databases, at 1-2 s each one by one).
  const queue = [...names];
  const dropper = () =>
    withAdmin(adminUrl, async (client) => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
      }
    });
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 6, names.length) }, dropper));
  return names;
}
