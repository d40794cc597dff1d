import type { SqlClient, SqlParam, SqlQueryOptions, SqlQueryResult, SqlRow, SqlTransactionOptions } from './sql-client';
import { isSerializationFailure } from './sql-error';

/**
 * The statements a driver can run on the one connection a transaction is bound to. Drivers implement
 * it; {@link createTransactionScope} builds the transaction-scoped {@link SqlClient} on top.
 */
export interface SqlSession {
  query<Row extends SqlRow = SqlRow>(text: string, params?: readonly SqlParam[], options?: SqlQueryOptions): Promise<SqlQueryResult<Row>>;
  exec(script: string): Promise<void>;
}

const isolationLevels = new Set(['read committed', 'repeatable read', 'serializable']);

/**
 * Validates transaction options and returns the transaction mode clause (`ISOLATION LEVEL …, READ
 * ONLY`) to append to `BEGIN` or `SET TRANSACTION`, or `null` for the defaults.
 *
 * @throws TypeError for an unknown isolation level or a bad retry count
 *
 * @example
 * ```ts
 * import { transactionModeSql } from '@tollgate/core/storage';
 * transactionModeSql({ isolationLevel: 'serializable', readOnly: true }); // 'ISOLATION LEVEL SERIALIZABLE, READ ONLY'
 * ```
 */
export function transactionModeSql(options: SqlTransactionOptions = {}): string | null {
  const { isolationLevel, readOnly, retrySerializationFailures } = options;
  if (retrySerializationFailures !== undefined && (!Number.isInteger(retrySerializationFailures) || retrySerializationFailures < 0)) {
    throw new TypeError('retrySerializationFailures must be a non-negative integer.');
  }
  const modes: string[] = [];
  if (isolationLevel !== undefined) {
    // Checked against the closed list because it is spliced into SQL text.
    if (!isolationLevels.has(isolationLevel)) throw new TypeError(`Unknown isolation level "${String(isolationLevel)}".`);
    modes.push(`ISOLATION LEVEL ${isolationLevel.toUpperCase()}`);
  }
  if (readOnly === true) modes.push('READ ONLY');
  return modes.length === 0 ? null : modes.join(', ');
}

const closedMessage = 'This transaction has ended: use the client passed to the callback only inside it.';

/**
 * Builds the client handed to a transaction callback over the transaction's connection. Its
 * `transaction()` nests with savepoints (one at a time per scope, so concurrent nested calls cannot
 * interleave); `end()` makes every later call reject, so a leaked scoped client cannot write outside
 * its transaction.
 *
 * @example
 * ```ts
 * import { createTransactionScope } from '@tollgate/core/storage';
 * const scope = createTransactionScope(session);
 * try { return await fn(scope.client); } finally { scope.end(); }
 * ```
 */
export function createTransactionScope(session: SqlSession, depth = 0): { client: SqlClient; end(): void } {
  let ended = false;
  let savepointCounter = 0;
  let savepointQueue: Promise<unknown> = Promise.resolve();

  const assertOpen = (): void => {
    if (ended) throw new Error(closedMessage);
  };

  const runSavepoint = async <T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> => {
    savepointCounter += 1;
    // Depth in the name keeps nested savepoints distinct from their parents'.
    const name = `tollgate_savepoint_${depth + 1}_${savepointCounter}`;
    await session.query(`SAVEPOINT ${name}`);
    const nested = createTransactionScope(session, depth + 1);
    try {
      const result = await fn(nested.client);
      await session.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      await session.query(`ROLLBACK TO SAVEPOINT ${name}`);
      await session.query(`RELEASE SAVEPOINT ${name}`);
      throw error;
    } finally {
      nested.end();
    }
  };

  const client: SqlClient = {
    async query<Row extends SqlRow = SqlRow>(text: string, params?: readonly SqlParam[], options?: SqlQueryOptions) {
      assertOpen();
      return session.query<Row>(text, params, options);
    },
    async exec(script) {
      assertOpen();
      await session.exec(script);
    },
    async transaction<T>(fn: (tx: SqlClient) => Promise<T>, options?: SqlTransactionOptions): Promise<T> {
      assertOpen();
      if (options !== undefined && Object.values(options).some((value) => value !== undefined)) {
        throw new TypeError('A nested transaction (savepoint) takes no options: set them on the outermost transaction.');
      }
      const run = savepointQueue.then(() => runSavepoint(fn));
      savepointQueue = run.catch(() => undefined);
      return run;
    },
    async close() {
      throw new Error('A transaction-scoped client cannot be closed: return from the transaction callback instead.');
    },
  };
  return {
    client,
    end: () => {
      ended = true;
    },
  };
}

/**
 * Runs `attempt` and, when it fails with a serialization failure or deadlock, runs it again up to
 * `retries` more times after a short randomized pause (so colliding transactions do not collide
 * again in lockstep).
 *
 * @param attempt - one complete transaction (BEGIN … COMMIT)
 * @param retries - extra attempts allowed
 * @param random - source of jitter in `[0, 1)`
 *
 * @example
 * ```ts
 * import { withSerializationRetry } from '@tollgate/core/storage';
 * const result = await withSerializationRetry(() => runOneTransaction(), 3);
 * ```
 */
export async function withSerializationRetry<T>(
  attempt: () => Promise<T>,
  retries: number,
  random: () => number = Math.random,
): Promise<T> {
  for (let attemptNumber = 0; ; attemptNumber += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (attemptNumber >= retries || !isSerializationFailure(error)) throw error;
      const pauseMs = Math.floor(random() * Math.min(100, 5 * 2 ** attemptNumber));
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}
