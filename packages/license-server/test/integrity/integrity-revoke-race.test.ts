/**
 * Signing racing a key revocation on PostgreSQL (PGlite has one connection, so nothing races there): a
 * signature is either audited before the revocation or refused, never issued after it committed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKey, openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { manifestFor, registerKey, signRequest } from './integrity-fixtures';

const server = serverEngines.find((engine) => engine.name !== 'pglite');

describe.skipIf(server === undefined)('Integrity signing racing a revocation [postgres]', () => {
  let bench: AdminHarness;
  beforeAll(async () => {
    bench = await openAdminHarness(server!);
  }, 60_000);
  afterAll(() => bench?.close());

  it('audits every issued signature before the revocation, and refuses the rest', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { fingerprint } = await registerKey(bench, bench.vendorA.productId);
      const manifest = manifestFor(bench.vendorA.productId, fingerprint, { appVersion: `race-${round}` });
      const signs = Array.from({ length: 12 }, () => signRequest(bench, manifest));
      const revoke = bench.call('POST', `/integrity/keys/${fingerprint}/revoke`, { query: { dry_run: 'false' }, key: freshKey() });
      const answers = await Promise.all(signs);
      expect((await revoke).status).toBe(200);
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.every((status) => status === 200 || status === 403), String(statuses)).toBe(true);
      const { rows } = await bench.sql.query<{ seq: string; action: string }>(
        "SELECT seq, action FROM license_audit_events WHERE vendor_id = $1 AND target_id = $2 AND action IN ('integrity.sign', 'integrity_key.revoke') ORDER BY seq",
        [bench.vendorA.vendorId, fingerprint],
      );
      const revokedAt = rows.findIndex((row) => row.action === 'integrity_key.revoke');
      expect(revokedAt).toBe(rows.length - 1);
      expect(rows.filter((row) => row.action === 'integrity.sign')).toHaveLength(statuses.filter((status) => status === 200).length);
      expect((await signRequest(bench, manifest)).status).toBe(403);
    }
  }, 120_000);
});
