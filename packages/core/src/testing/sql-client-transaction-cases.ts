import { beforeEach, expect, it } from 'vitest';
import type { SqlClient } from '../storage/sql-client';
import { SqlError, SqlState } from '../storage/sql-error';

async function labels(sql: SqlClient): Promise<string[]> {
  const { rows } = await sql.query<{ label: string }>('SELECT label FROM conformance_entries ORDER BY label');
  return rows.map((row) => row.label);
}

const insert = (sql: SqlClient, label: string) => sql.query('INSERT INTO conformance_entries (label) VALUES ($1)', [label]);

// Lets other queued work run, so that a missing lock would show up as interleaving.
const yieldToOthers = () => new Promise((resolve) => setTimeout(resolve, 5));

/** Registers the transaction cases of the SqlClient suite. */
export function sqlClientTransactionCases(client: () => SqlClient): void {
  beforeEach(async () => {
    await client().exec(`
      DROP TABLE IF EXISTS conformance_entries;
      CREATE TABLE conformance_entries (label text PRIMARY KEY);
      DROP TABLE IF EXISTS conformance_counter;
      CREATE TABLE conformance_counter (id integer PRIMARY KEY, value integer NOT NULL);
      INSERT INTO conformance_counter VALUES (1, 0);`);
  });

  it('commits when the callback resolves and returns its value', async () => {
    const result = await client().transaction(async (tx) => {
      await insert(tx, 'a');
      await insert(tx, 'b');
      return 'done';
    });
    expect(result).toBe('done');
    expect(await labels(client())).toEqual(['a', 'b']);
  });

  it('rolls back when the callback throws and rethrows the same error', async () => {
    const boom = new Error('boom');
    await expect(
      client().transaction(async (tx) => {
        await insert(tx, 'a');
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await labels(client())).toEqual([]);
  });

  it('rolls back earlier statements when a statement fails', async () => {
    await expect(
      client().transaction(async (tx) => {
        await insert(tx, 'a');
        await insert(tx, 'a');
      }),
    ).rejects.toMatchObject({ code: SqlState.uniqueViolation });
    expect(await labels(client())).toEqual([]);
  });

  it('refuses to commit a transaction whose statement failed even if the callback swallowed the error', async () => {
    await expect(
      client().transaction(async (tx) => {
        await insert(tx, 'a');
        await insert(tx, 'a').catch(() => undefined);
      }),
    ).rejects.toBeInstanceOf(SqlError);
    expect(await labels(client())).toEqual([]);
  });

  it('nests with savepoints: an inner throw undoes only the inner work', async () => {
    await client().transaction(async (tx) => {
      await insert(tx, 'outer');
      await expect(
        tx.transaction(async (inner) => {
          await insert(inner, 'inner-failed');
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
      await tx.transaction(async (inner) => insert(inner, 'inner-kept'));
    });
    expect(await labels(client())).toEqual(['inner-kept', 'outer']);
  });

  it('nests savepoints inside savepoints', async () => {
    await client().transaction(async (tx) => {
      await tx.transaction(async (level1) => {
        await insert(level1, 'level-1');
        await level1.transaction(async (level2) => insert(level2, 'level-2-kept'));
        await expect(
          level1.transaction(async (level2) => {
            await insert(level2, 'level-2-failed');
            await level2.transaction(async (level3) => insert(level3, 'level-3-failed'));
            throw new Error('undo level 2');
          }),
        ).rejects.toThrow('undo level 2');
      });
    });
    expect(await labels(client())).toEqual(['level-1', 'level-2-kept']);
  });

  it('refuses options on a nested transaction', async () => {
    await client().transaction(async (tx) => {
      await expect(tx.transaction(async () => undefined, { isolationLevel: 'serializable' })).rejects.toThrow(TypeError);
    });
  });

  it('refuses statements on a transaction client after its transaction ended', async () => {
    let leaked: SqlClient | undefined;
    await client().transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked?.query('SELECT 1')).rejects.toThrow(/ended/);
    await expect(leaked?.close()).rejects.toThrow();
  });

  it('never interleaves concurrent transactions and plain queries', async () => {
    const failing = client().transaction(async (tx) => {
      await insert(tx, 'rolled-back');
      await yieldToOthers();
      throw new Error('abort');
    });
    const plain = insert(client(), 'plain');
    const committed = client().transaction(async (tx) => {
      await insert(tx, 'committed');
      await yieldToOthers();
    });
    await expect(failing).rejects.toThrow('abort');
    await Promise.all([plain, committed]);
    expect(await labels(client())).toEqual(['committed', 'plain']);
  });

  it('serialises read-modify-write transactions that lock the row', async () => {
    await Promise.all(
      Array.from({ length: 20 }, () =>
        client().transaction(async (tx) => {
          const { rows } = await tx.query<{ value: number }>('SELECT value FROM conformance_counter WHERE id = 1 FOR UPDATE');
          await yieldToOthers();
          await tx.query('UPDATE conformance_counter SET value = $1 WHERE id = 1', [(rows[0]?.value ?? 0) + 1]);
        }),
      ),
    );
    expect((await client().query('SELECT value FROM conformance_counter')).rows).toEqual([{ value: 20 }]);
  });

  it('applies the isolation level and read-only mode', async () => {
    const level = await client().transaction(
      async (tx) => (await tx.query<{ level: string }>("SELECT current_setting('transaction_isolation') AS level")).rows[0]?.level,
      { isolationLevel: 'serializable' },
    );
    expect(level).toBe('serializable');
    await expect(client().transaction(async (tx) => insert(tx, 'x'), { readOnly: true })).rejects.toMatchObject({
      code: '25006',
    });
    await expect(
      client().transaction(async () => undefined, { isolationLevel: 'chaos' as 'serializable' }),
    ).rejects.toThrow(TypeError);
  });

  it('retries serialization failures only when asked, re-running the whole callback', async () => {
    const serializationFailure = () => new SqlError({ code: SqlState.serializationFailure, message: 'could not serialize' });
    let calls = 0;
    await expect(
      client().transaction(async (tx) => {
        calls += 1;
        await insert(tx, `attempt-${calls}`);
        throw serializationFailure();
      }),
    ).rejects.toMatchObject({ code: SqlState.serializationFailure });
    expect(calls).toBe(1);

    calls = 0;
    const result = await client().transaction(
      async (tx) => {
        calls += 1;
        await insert(tx, `attempt-${calls}`);
        if (calls < 3) throw serializationFailure();
        return calls;
      },
      { retrySerializationFailures: 2 },
    );
    expect(result).toBe(3);
    expect(await labels(client())).toEqual(['attempt-3']);
  });

  it('does not retry other errors', async () => {
    let calls = 0;
    await expect(
      client().transaction(
        async () => {
          calls += 1;
          throw new Error('not retryable');
        },
        { retrySerializationFailures: 5 },
      ),
    ).rejects.toThrow('not retryable');
    expect(calls).toBe(1);
  });
}
