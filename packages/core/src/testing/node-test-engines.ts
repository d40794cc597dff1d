/** A database engine the storage tests run on. */
export interface TestEngine {
  /** `pglite` (always available) or `postgres` (a server, from `TOLLGATE_TEST_DATABASE_URL`). */
  name: 'pglite' | 'postgres';
  /** For `postgres`: the server to create test schemas on. */
  connectionString?: string;
}

/** Environment variable naming the PostgreSQL server tests may use. */
export const testDatabaseUrlVariable = 'TOLLGATE_TEST_DATABASE_URL';

/**
 * The URL with its password masked, for messages.
 *
 * @example
 * ```ts
 * import { redactConnectionString } from '@tollgate/core/testing';
 * redactConnectionString('postgres://app:s3cret@db/app'); // 'postgres://app:***@db/app'
 * ```
 */
export function redactConnectionString(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return '<unparseable connection string>';
  }
}

// Only a success is remembered: a test worker runs many files, and one passing failure (a full connection
// slot list, say) must not skip or fail the server for every later file of that worker.
const reachability = new Map<string, Promise<Error | null>>();

function checkReachable(connectionString: string): Promise<Error | null> {
  let pending = reachability.get(connectionString);
  if (pending === undefined) {
    pending = (async () => {
      const { default: pg } = await import('pg');
      const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
      // An unreachable server can also fail the socket after connect() settles; swallow it here.
      client.on('error', () => undefined);
      try {
        await client.connect();
        await client.query('SELECT 1');
        return null;
      } catch (error) {
        reachability.delete(connectionString);
        return error instanceof Error ? error : new Error(String(error));
      } finally {
        await client.end().catch(() => undefined);
      }
    })();
    reachability.set(connectionString, pending);
  }
  return pending;
}

/**
 * The engines to run storage suites on: PGlite always, plus `postgres` when
 * `TOLLGATE_TEST_DATABASE_URL` is set. If that server is unreachable the function rejects when
 * `CI=true` (a CI run must never skip the server silently) and otherwise leaves `postgres` out with a
 * warning on stderr.
 *
 * @param env - the environment to read (default `process.env`)
 * @returns the engines, PGlite first
 *
 * @example
 * ```ts
 * import { describeJobQueueConformance, testDatabaseEngines, openTestDatabase } from '@tollgate/core/testing';
 * for (const engine of await testDatabaseEngines()) {
 *   describeJobQueueConformance({ name: engine.name, open: async () => { … openTestDatabase({ engine }) … } });
 * }
 * ```
 */
export async function testDatabaseEngines(env: Record<string, string | undefined> = process.env): Promise<TestEngine[]> {
  const engines: TestEngine[] = [{ name: 'pglite' }];
  const connectionString = env[testDatabaseUrlVariable];
  if (connectionString === undefined || connectionString === '') return engines;
  const failure = await checkReachable(connectionString);
  if (failure === null) {
    engines.push({ name: 'postgres', connectionString });
    return engines;
  }
  const message =
    `${testDatabaseUrlVariable} is set but the PostgreSQL server at ${redactConnectionString(connectionString)} ` +
    `is unreachable (${failure.message}).`;
  if (env['CI'] === 'true') {
    throw new Error(`${message} CI runs must test the postgres engine: start the server or unset the variable.`);
  }
  console.warn(`[tollgate] ${message} Running the storage tests on PGlite only.`);
  return engines;
}
