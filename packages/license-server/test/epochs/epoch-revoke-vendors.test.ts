/**
 * The two actors of an epoch revocation are two Admin tokens of one vendor (review of issue #14), on a
 * server where vendors A and B both administer global epochs (`LICENSE_EPOCH_ADMIN_VENDORS=A,B`): a token
 * of B cannot complete (nor replace) A's approval, a second token of A reusing the first one's
 * Idempotency-Key gets a conflict instead of the first token's `approval_pending` answer, and a second
 * token of A with its own key executes the revocation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapVendor } from '@tollgate/core';
import type { BootstrappedVendor } from '@tollgate/core/license';
import { freshKey } from '../admin/admin-harness';
import { openServerSandbox, serverEngines } from '../helpers';
import { openEpochBench, type EpochBench } from './epoch-bench';

const scopes = ['epochs:rw', 'revoke'] as const;

for (const engine of serverEngines) {
  describe(`Epoch revocation approvals stay within one vendor [${engine.name}]`, () => {
    let bench: EpochBench;
    let vendorA: BootstrappedVendor;
    let vendorB: BootstrappedVendor;
    let target: string;

    const revoke = (token: string, key: string) =>
      bench.call('POST', `/epochs/${target}/revoke`, { token, query: { dry_run: 'false' }, key, body: { confirm_epoch_id: target } });
    const epochStatus = async () => (await bench.call('GET', `/epochs/${target}`, { token: vendorA.token })).body.epoch.status;

    beforeAll(async () => {
      // Vendor ids are random: bootstrap A and B on a first start, then restart with both named.
      const sandbox = await openServerSandbox(engine);
      const first = await sandbox.start({ LICENSE_RATE_LIMIT_PER_ADDRESS: 'off' });
      vendorA = await bootstrapVendor(first.context.adminProvisioning, { vendor: 'Vendor A', product: 'Product A' });
      vendorB = await bootstrapVendor(first.context.adminProvisioning, { vendor: 'Vendor B', product: 'Product B' });
      await first.close();
      bench = await openEpochBench(engine, { sandbox, env: { LICENSE_EPOCH_ADMIN_VENDORS: `${vendorA.vendorId},${vendorB.vendorId}` } });
      const listed = await bench.call('GET', '/epochs', { token: vendorA.token });
      expect(listed.body.administers_global_epochs).toBe(true);
      target = listed.body.epochs.find((epoch: { product_scope?: string | null }) => epoch.product_scope == null).epoch_id;
      await bench.activeEpoch({ token: vendorA.token });
    }, 120_000);
    afterAll(() => bench?.close());

    it('refuses a token of another vendor on a live approval, changes nothing, and lets a second token of the vendor execute it', async () => {
      const [firstA, secondA, firstB] = await Promise.all([bench.tokenWith(vendorA, scopes), bench.tokenWith(vendorA, scopes), bench.tokenWith(vendorB, scopes)]);
      const keyOfFirst = freshKey();
      const opened = await revoke(firstA, keyOfFirst);
      expect(opened.status).toBe(202);
      const approvalId = opened.body.approval.approval_id;

      const foreign = await revoke(firstB, freshKey());
      expect([foreign.status, foreign.body.error.code]).toEqual([409, 'second_actor_required']);
      expect(foreign.body.error.message).toMatch(/another vendor/i);
      expect(await epochStatus()).toBe('active');
      const dryRun = await bench.call('POST', `/epochs/${target}/revoke`, { token: vendorB.token, body: { confirm_epoch_id: target } });
      expect(dryRun.body).toMatchObject({ approval_pending: true, approval: { approval_id: approvalId } });

      // The first token's key with the identical body: a second token of A gets a conflict, not the first
      // token's 202 (which would look like a counted approval); B's keys are B's own, so it is refused again.
      const borrowed = await revoke(secondA, keyOfFirst);
      expect([borrowed.status, borrowed.body.error.code, borrowed.headers.get('idempotent-replayed')]).toEqual([409, 'idempotency_conflict', null]);
      const foreignBorrowed = await revoke(firstB, keyOfFirst);
      expect([foreignBorrowed.status, foreignBorrowed.body.error.code, foreignBorrowed.headers.get('idempotent-replayed')]).toEqual([409, 'second_actor_required', null]);
      expect(await epochStatus()).toBe('active');
      const replayed = await revoke(firstA, keyOfFirst);
      expect([replayed.status, replayed.headers.get('idempotent-replayed'), replayed.text]).toEqual([202, 'true', opened.text]);

      const executed = await revoke(secondA, freshKey());
      expect(executed.status).toBe(200);
      expect(executed.body).toMatchObject({ revoked: true, epoch_id: target, approval: { approval_id: approvalId, approved_by: expect.any(String) } });
      expect(await epochStatus()).toBe('revoked');
      const { rows } = await bench.sql.query<{ vendor_id: string; status: string }>('SELECT vendor_id, status FROM license_epoch_revocation_approvals WHERE approval_id = $1', [approvalId]);
      expect(rows).toEqual([{ vendor_id: vendorA.vendorId, status: 'executed' }]);
    });
  });
}
