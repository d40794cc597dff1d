/**
 * Epoch revocation under contention, on the PostgreSQL server only (PGlite's single connection
 * serialises everything, so this would pass there without proving anything): several distinct actors
 * confirming at once execute the revocation exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode } from '@tollgate/core';
import { freshKey } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { openEpochBench, type EpochBench } from './epoch-bench';

const server = serverEngines.find((engine) => engine.name !== 'pglite');

describe.skipIf(server === undefined)('Epoch revocation under contention [postgres]', () => {
  let bench: EpochBench;
  beforeAll(async () => {
    bench = await openEpochBench(server as NonNullable<typeof server>);
  }, 60_000);
  afterAll(() => bench?.close());

  it('executes exactly once when distinct actors confirm at the same time', async () => {
    for (let round = 0; round < 3; round += 1) {
      // Each round revokes a fresh global epoch while another stays as the replacement.
      const target = await bench.activeEpoch();
      await bench.activeEpoch();
      const tokens = await Promise.all([0, 1, 2, 3].map(() => bench.tokenWith(bench.vendorA, ['epochs:rw', 'revoke'])));
      const answers = await Promise.all(
        tokens.map((token) => bench.call('POST', `/epochs/${target}/revoke`, { token, query: { dry_run: 'false' }, key: freshKey(), body: { confirm_epoch_id: target } })),
      );
      expect(answers.filter((answer) => answer.status >= 500).map((answer) => answer.text)).toEqual([]);
      const executed = answers.filter((answer) => answer.status === 200);
      expect(executed).toHaveLength(1);
      expect(answers.filter((answer) => answer.status === 202)).toHaveLength(1);
      expect(answers.filter((answer) => answer.status === 409).every((answer) => answer.body.error.code === 'already_revoked')).toBe(true);
      const { rows } = await bench.sql.query<{ approvals: string; executed: string }>(
        `SELECT count(*) AS approvals, count(*) FILTER (WHERE status = 'executed') AS executed FROM license_epoch_revocation_approvals WHERE epoch_id = $1`,
        [hexDecode(target)],
      );
      expect(rows[0]).toEqual({ approvals: '1', executed: '1' });
      const feed = await bench.sql.query<{ n: string }>(`SELECT count(*) AS n FROM license_epochs WHERE epoch_id = $1 AND status = 'revoked'`, [hexDecode(target)]);
      expect(feed.rows[0]?.n).toBe('1');
    }
    expect((await bench.call('POST', '/audit/verify', { body: {} })).body.verified).toBe(true);
  }, 120_000);
});
