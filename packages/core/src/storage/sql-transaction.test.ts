import { describe, expect, it } from 'vitest';
import { SqlError } from '@tollgate/core';
import { SqlState, transactionModeSql, withSerializationRetry } from '@tollgate/core/storage';

describe('transactionModeSql', () => {
  it('builds the mode clause from the options', () => {
    expect(transactionModeSql()).toBeNull();
    expect(transactionModeSql({ retrySerializationFailures: 3 })).toBeNull();
    expect(transactionModeSql({ isolationLevel: 'repeatable read', readOnly: true })).toBe('ISOLATION LEVEL REPEATABLE READ, READ ONLY');
  });

  it('refuses isolation levels outside the list and bad retry counts', () => {
    expect(() => transactionModeSql({ isolationLevel: 'serializable; DROP TABLE x' as 'serializable' })).toThrow(TypeError);
    expect(() => transactionModeSql({ retrySerializationFailures: -1 })).toThrow(TypeError);
    expect(() => transactionModeSql({ retrySerializationFailures: 1.5 })).toThrow(TypeError);
  });
});

describe('withSerializationRetry', () => {
  const failure = (code: string) => new SqlError({ code, message: 'conflict' });

  it('retries serialization failures and deadlocks up to the limit', async () => {
    const codes = [SqlState.serializationFailure, SqlState.deadlockDetected];
    let calls = 0;
    const result = await withSerializationRetry(
      async () => {
        const code = codes[calls];
        calls += 1;
        if (code !== undefined) throw failure(code);
        return 'ok';
      },
      2,
      () => 0,
    );
    expect({ result, calls }).toEqual({ result: 'ok', calls: 3 });
  });

  it('gives up after the allowed retries with the last failure', async () => {
    let calls = 0;
    const attempt = async () => {
      calls += 1;
      throw failure(SqlState.serializationFailure);
    };
    await expect(withSerializationRetry(attempt, 2, () => 0)).rejects.toMatchObject({ code: SqlState.serializationFailure });
    expect(calls).toBe(3);
  });

  it('does not retry other SQL errors', async () => {
    let calls = 0;
    const attempt = async () => {
      calls += 1;
      throw failure(SqlState.uniqueViolation);
    };
    await expect(withSerializationRetry(attempt, 5, () => 0)).rejects.toMatchObject({ code: SqlState.uniqueViolation });
    expect(calls).toBe(1);
  });
});
