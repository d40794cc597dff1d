import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SqlClient } from './sql-client';
import { pingSql } from './sql-ping';

// A SQL client whose query is the fault under test; the rest is never called by pingSql.
function clientAnswering(query: () => Promise<unknown>): SqlClient {
  const unused = () => Promise.reject(new Error('not used'));
  return { query, exec: unused, transaction: unused, close: unused } as unknown as SqlClient;
}

describe('pingSql', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('is true when SELECT 1 answers, and asks exactly that', async () => {
    const query = vi.fn(async () => ({ rows: [{ ok: 1 }], rowCount: 1 }));
    expect(await pingSql(clientAnswering(query))).toBe(true);
    expect(query).toHaveBeenCalledWith('SELECT 1 AS ok');
  });

  it('is false, not a throw, when the query fails', async () => {
    expect(await pingSql(clientAnswering(() => Promise.reject(new Error('connection refused'))))).toBe(false);
  });

  it('is false once the timeout passes on a database that never answers', async () => {
    vi.useFakeTimers();
    const answer = pingSql(clientAnswering(() => new Promise(() => {})), 500);
    await vi.advanceTimersByTimeAsync(499);
    let settled = false;
    void answer.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await answer).toBe(false);
  });
});
