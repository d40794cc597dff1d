/**
 * Epoch revocation when the process dies mid-way: each write of a confirmation (and its COMMIT) is made
 * to fail in turn with a database trigger. A failed first confirmation leaves no approval; a failed
 * executing confirmation leaves the epoch active, the feed untouched and the approval pending; neither
 * leaves an audit event. A 500 is not journaled, so the same Idempotency-Key then completes, exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode } from '@tollgate/core';
import { freshKey, type AdminAnswer } from '../admin/admin-harness';
import { describeFault, injectedFaultMessage, withFault, type InjectedFault } from '../fault-triggers';
import { serverEngines } from '../helpers';
import { openEpochBench, type EpochBench } from './epoch-bench';

const auditOf = (action: string): InjectedFault => ({ table: 'license_audit_events', on: 'INSERT', when: `NEW.action = '${action}'` });

/** Every write of the first confirmation, then its commit. */
const openingFaults: InjectedFault[] = [
  { table: 'license_epoch_revocation_approvals', on: 'INSERT' },
  auditOf('epoch.revoke_requested'),
  { ...auditOf('epoch.revoke_requested'), atCommit: true },
];

/** Every write of the executing confirmation, then its commit. */
const executingFaults: InjectedFault[] = [
  { table: 'license_revocation_batches', on: 'INSERT' },
  { table: 'license_epoch_revocation_approvals', on: 'UPDATE' },
  auditOf('epoch.revoke_approved'),
  auditOf('epoch.revoke'),
  { ...auditOf('epoch.revoke'), atCommit: true },
];

for (const engine of serverEngines) {
  describe(`Epoch revocation when the process dies mid-way [${engine.name}]`, () => {
    let bench: EpochBench;
    let requester: string;
    let approver: string;
    beforeAll(async () => {
      bench = await openEpochBench(engine);
      requester = await bench.tokenWith(bench.vendorA, ['epochs:rw', 'revoke']);
      approver = await bench.tokenWith(bench.vendorA, ['epochs:rw', 'revoke']);
    }, 90_000);
    afterAll(() => bench?.close());

    const confirm = (target: string, token: string, key: string) =>
      bench.call('POST', `/epochs/${target}/revoke`, { token, query: { dry_run: 'false' }, key, body: { confirm_epoch_id: target } });

    /** A fresh global epoch to revoke, with another one loaded as its replacement. */
    const revocableEpoch = async () => {
      const target = await bench.activeEpoch();
      await bench.activeEpoch();
      return target;
    };

    /** What a revocation of `target` writes: the epoch, its approvals, the feed and its audit events. */
    const stateOf = async (target: string) => {
      const epochId = hexDecode(target);
      const epoch = await bench.sql.query<{ status: string; key_stored: boolean }>('SELECT status, sealed_private_key IS NOT NULL AS key_stored FROM license_epochs WHERE epoch_id = $1', [epochId]);
      const approvals = await bench.sql.query<{ approval_id: string; status: string }>('SELECT approval_id, status FROM license_epoch_revocation_approvals WHERE epoch_id = $1 ORDER BY requested_at', [epochId]);
      const feed = await bench.sql.query<{ batches: string; head: string | null }>('SELECT (SELECT count(*) FROM license_revocation_batches)::text AS batches, (SELECT seq::text FROM license_revocation_head) AS head');
      const audit = await bench.sql.query<{ action: string }>("SELECT action FROM license_audit_events WHERE target_type = 'epoch' AND target_id = $1 AND action LIKE 'epoch.revoke%' ORDER BY seq", [target]);
      return { epoch: epoch.rows[0], approvals: approvals.rows, feed: feed.rows[0], audit: audit.rows.map((row) => row.action) };
    };

    const expectCrashAnswer = (answer: AdminAnswer, fault: InjectedFault) => {
      expect([answer.status, answer.body?.error?.code], `${describeFault(fault)}: ${answer.text}`).toEqual([500, 'internal_error']);
      expect(answer.text).not.toContain(injectedFaultMessage);
    };

    /** Confirms once per fault with the same key, each attempt dying at its fault; none may change `target`'s state. */
    const crashAtEach = async (target: string, token: string, key: string, faults: readonly InjectedFault[]) => {
      const before = await stateOf(target);
      for (const fault of faults) {
        expectCrashAnswer(await withFault(bench.sql, fault, () => confirm(target, token, key)), fault);
        expect(await stateOf(target), describeFault(fault)).toEqual(before);
      }
      return before;
    };

    it('a first confirmation that dies before its commit leaves no approval; its key then opens one, once', async () => {
      const target = await revocableEpoch();
      const key = freshKey();
      expect((await crashAtEach(target, requester, key, openingFaults)).approvals).toEqual([]);
      const opened = await confirm(target, requester, key);
      expect([opened.status, opened.body.approval_pending], opened.text).toEqual([202, true]);
      const replayed = await confirm(target, requester, key);
      expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.body.approval.approval_id]).toEqual([202, 'true', opened.body.approval.approval_id]);
      const after = await stateOf(target);
      expect(after.approvals).toEqual([{ approval_id: opened.body.approval.approval_id, status: 'pending' }]);
      expect(after.audit).toEqual(['epoch.revoke_requested']);
      expect(after.epoch).toEqual({ status: 'active', key_stored: true });
    }, 120_000);

    it('an executing confirmation that dies anywhere before its commit leaves the epoch active, no batch and the approval pending; its key then revokes once', async () => {
      const target = await revocableEpoch();
      const opened = await confirm(target, requester, freshKey());
      expect(opened.status, opened.text).toBe(202);
      const key = freshKey();
      const before = await crashAtEach(target, approver, key, executingFaults);
      expect(before).toMatchObject({ epoch: { status: 'active', key_stored: true }, approvals: [{ status: 'pending' }], audit: ['epoch.revoke_requested'] });
      const executed = await confirm(target, approver, key);
      expect([executed.status, executed.body.revoked], executed.text).toEqual([200, true]);
      const replayed = await confirm(target, approver, key);
      expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.body.revocation]).toEqual([200, 'true', executed.body.revocation]);
      const again = await confirm(target, approver, freshKey());
      expect([again.status, again.body.error.code]).toEqual([409, 'already_revoked']);
      const after = await stateOf(target);
      expect(after).toEqual({
        epoch: { status: 'revoked', key_stored: false },
        approvals: [{ approval_id: opened.body.approval.approval_id, status: 'executed' }],
        feed: { batches: String(Number(before.feed?.batches) + 1), head: String(executed.body.revocation.seq) },
        audit: ['epoch.revoke_requested', 'epoch.revoke_approved', 'epoch.revoke'],
      });
      expect(executed.body.revocation.seq).toBe(Number(before.feed?.head ?? 0) + 1);
      expect((await bench.call('POST', '/audit/verify', { body: {} })).body.verified).toBe(true);
    }, 120_000);
  });
}
