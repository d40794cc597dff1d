/**
 * Pins the database work of one `POST /v1/validate` (issue #13's benchmark: the database part must stay
 * cheap). A device this instance has already seen costs exactly one statement (machine read, license
 * budget when it is in the shared SQL limiter, nonce and contact: `spendValidationInOneTrip`), so one
 * durable commit, with or without a per-license budget. A change that adds a round trip to the hot path
 * fails here.
 *
 * Only the statements issued on behalf of a validation are counted: the server's SQL client is shared
 * with its background jobs (queues, analytics drain), so a statement counts when `validateMachine` is on
 * its (async) call stack. The release gate's refill is left out: it is one statement per product per
 * cache lifetime (2 s, and dropped on release changes), not per request, and on a loaded test machine a
 * validation can outlast that lifetime.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '@tollgate/core';
import { openClientBench, postCbor, validateBody, type ClientBench } from './client-harness';
import { errorOf, licensedDevice, ticketOf } from './client-session-helpers';
import { serverEngines } from '../helpers';

/** Records the text of every statement `validateMachine` sends through `sql` while `record` is on. */
function recordValidationStatements(sql: SqlClient): { statements: string[]; record: boolean } {
  const log = { statements: [] as string[], record: false };
  const original = sql.query.bind(sql);
  (sql as { query: SqlClient['query'] }).query = ((text: string, params?: unknown[]) => {
    const stack = new Error().stack ?? '';
    if (log.record && stack.includes('validateMachine') && !stack.includes('sql-release-gate')) log.statements.push(text);
    return original(text, params as never);
  }) as SqlClient['query'];
  return log;
}

const cases: { name: string; env: Record<string, string> }[] = [
  { name: 'license budget in the SQL limiter', env: { LICENSE_RATE_LIMIT_PER_LICENSE: '1000/1' } },
  { name: 'no license budget', env: {} },
];

for (const engine of serverEngines) for (const budget of cases) {
  describe(`POST /v1/validate: statements per validation [${engine.name}, ${budget.name}]`, () => {
    let bench: ClientBench;
    let log: { statements: string[]; record: boolean };
    beforeAll(async () => {
      bench = await openClientBench(engine, budget.env);
      log = recordValidationStatements(bench.admin.server.context.sql);
    }, 120_000);
    afterAll(() => bench?.close());

    /** The license's validate budget row in the SQL limiter (`undefined` without a budget). */
    const budgetRow = async (licenseId: string) =>
      (await bench.admin.sql.query('SELECT tat, refilled_at_ms FROM tollgate_rate_limits WHERE key = $1', [`license-client:validate:license:${licenseId}`])).rows[0];

    /** One validation's statements, with its answer checked to be a ticket. */
    const validateCounting = async (licensed: Awaited<ReturnType<typeof licensedDevice>>): Promise<string[]> => {
      log.statements = [];
      log.record = true;
      try {
        await ticketOf(bench, await bench.validate(licensed.device, licensed.seat));
      } finally {
        log.record = false;
      }
      return log.statements;
    };

    it("answers a known device's validation with one statement, and its replay with one that spends nothing", async () => {
      const licensed = await licensedDevice(bench);
      // The first validation may read more (the machine before the proof, the entitlements into their cache).
      const first = await validateCounting(licensed);
      expect(first.length).toBeGreaterThanOrEqual(1);
      for (let n = 0; n < 3; n += 1) {
        const statements = await validateCounting(licensed);
        expect(statements, statements.map((text) => text.replace(/\s+/g, ' ').slice(0, 80)).join('\n')).toHaveLength(1);
        expect(statements[0]).toContain('INSERT INTO license_client_nonces');
      }
      const replayed = await validateBody(licensed.device, licensed.seat, bench.productId);
      expect((await postCbor(bench.url, '/v1/validate', replayed)).status).toBe(200);
      const budgetBefore = await budgetRow(licensed.licenseId);
      log.statements = [];
      log.record = true;
      const replay = await postCbor(bench.url, '/v1/validate', replayed);
      log.record = false;
      expect([replay.status, errorOf(replay).code]).toEqual([401, 1000]);
      expect(log.statements).toHaveLength(1);
      // A replay charges the license nothing.
      expect(await budgetRow(licensed.licenseId)).toEqual(budgetBefore);
    });
  });
}
