import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyticsPseudonym, deriveAnalyticsKeys, drainAnalyticsOutbox, rollupAnalyticsDay } from '@tollgate/core/license';
import { freshKey, type AdminHarness } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { dsrMasterKey, licenseTables, openDsrBench, seedSubject, stableSnapshot, tablesMentioning, type SeededSubject } from './dsr-fixtures';

const analyticsKeys = deriveAnalyticsKeys(dsrMasterKey);

/** Every identifier of the subject a table could hold: ids in plain and every pseudonym. */
const needlesOf = (subject: SeededSubject, withLicense: boolean) => [
  ...subject.machineIds,
  ...subject.telemetrySubjects,
  ...subject.machineIds.map((id) => analyticsPseudonym(analyticsKeys, 'device', id)),
  ...(withLicense ? [subject.licenseId, analyticsPseudonym(analyticsKeys, 'license', subject.licenseId)] : []),
];

/**
 * Tables whose rows keep naming a subject after its erasure, by design (docs/decisions.md "Data-subject
 * requests"): audit events and signed revocation batches (immutable), and for a license the license row
 * with its billing records.
 */
const retainedForMachine = ['license_audit_events', 'license_revocation_batches'];
const retainedForLicense = [...retainedForMachine, 'license_billing_events', 'license_billing_payments', 'license_licenses', 'license_subscriptions'];

async function aggregates(bench: AdminHarness): Promise<string> {
  const parts: string[] = [];
  for (const table of (await licenseTables(bench)).filter((name) => /daily|sketches|rollup_days|counters/.test(name))) {
    const { rows } = await bench.sql.query<{ row: string }>(`SELECT t::text AS row FROM ${table} t ORDER BY 1`);
    parts.push(table, ...rows.map((row) => row.row));
  }
  return parts.join('\n');
}

for (const engine of serverEngines) {
  describe(`DSR export and delete [${engine.name}]`, () => {
    let bench: AdminHarness;
    beforeAll(async () => {
      bench = await openDsrBench(engine);
    }, 60_000);
    afterAll(() => bench?.close());

    /** A subject with its analytics events drained into pseudonymised rows and one still in the outbox. */
    async function fullSubject(machines = 2): Promise<SeededSubject> {
      const subject = await seedSubject(bench, bench.vendorA, machines);
      await drainAnalyticsOutbox(bench.sql, analyticsKeys);
      // A check-in after the drain stays in the outbox (pending).
      await bench.sql.query('UPDATE license_machines SET last_validated_at = now() WHERE machine_id = $1', [subject.machineIds[1]]);
      return subject;
    }

    it('exports everything held about a license, naming each row by its table', async () => {
      const subject = await fullSubject();
      const answer = await bench.call('POST', '/dsr/export', { body: { license_id: subject.licenseId } });
      expect(answer.status).toBe(200);
      const body = answer.body;
      expect(body).toMatchObject({ ok: true, subject: { kind: 'license', id: subject.licenseId }, license_id: subject.licenseId });
      expect([...body.machine_ids].sort()).toEqual([...subject.machineIds].sort());
      const records = body.records as Record<string, Record<string, unknown>[]>;
      expect(records.license_licenses?.[0]).toMatchObject({ license_id: subject.licenseId, metadata: { customer: 'Ada Lovelace' } });
      expect(records.license_licenses?.[0]).not.toHaveProperty('key_hash');
      expect(records.license_machines?.map((row) => row.machine_id).sort()).toEqual([...subject.machineIds].sort());
      for (const table of ['license_client_idempotency', 'license_offline_responses', 'license_client_nonces']) expect(records[table], table).toHaveLength(subject.machineIds.length);
      expect(records.license_telemetry_raw?.map((row) => row.subject_pseudonym).sort()).toEqual([...subject.telemetrySubjects, ...subject.telemetrySubjects].sort());
      expect(records.license_analytics_events?.map((row) => row.device_pseudonym).sort()).toEqual(subject.machineIds.map((id) => analyticsPseudonym(analyticsKeys, 'device', id)).sort());
      expect(records.license_analytics_outbox).toHaveLength(1);
      expect(records.license_subscriptions?.[0]).toMatchObject({ license_id: subject.licenseId, external_id: `sub_${subject.licenseId}` });
      expect(records.license_billing_events?.[0]).toMatchObject({ event_id: `evt_${subject.licenseId}` });
      expect(records.license_billing_payments?.[0]).toMatchObject({ payment_ref: `ch_${subject.licenseId}` });
      expect(records.license_revocation_batches).toHaveLength(1);
      expect(records.license_suspicion_signals?.[0]).toMatchObject({ license_id: subject.licenseId, kind: 'fingerprint_churn' });
      expect(records.license_accounts?.[0]).toMatchObject({ account_id: subject.accountId, email: `${subject.accountId}@example.com` });
      expect(records.license_accounts?.[0]).not.toHaveProperty('password_hash');
      expect(records.license_account_sessions?.[0]).toMatchObject({ account_id: subject.accountId });
      expect(records.license_account_sessions?.[0]).not.toHaveProperty('refresh_hash');
      expect(body.audit_references.truncated).toBe(false);
      expect(body.audit_references.events.map((event: { action: string; target_id: string }) => `${event.action} ${event.target_id}`)).toEqual(
        expect.arrayContaining([`machine.revoke ${subject.machineIds[0]}`]),
      );

      // Completeness: every table holding any identifier of the subject is in the export (or documented).
      const holding = Object.keys(await tablesMentioning(bench, needlesOf(subject, true)));
      const exported = [...Object.keys(records).filter((table) => (records[table]?.length ?? 0) > 0), 'license_audit_events'];
      expect(holding.filter((table) => !exported.includes(table))).toEqual([]);
    });

    it('exports a machine: its rows only, with the license as context; the export is not journaled', async () => {
      const subject = await fullSubject();
      const [machineId, other] = subject.machineIds as [string, string];
      const before = await stableSnapshot(bench);
      const answer = await bench.call('POST', '/dsr/export', { body: { machine_id: machineId }, key: freshKey() });
      expect(answer.status).toBe(200);
      expect(await stableSnapshot(bench)).toBe(before);
      expect(answer.body.machine_ids).toEqual([machineId]);
      expect(answer.text).not.toContain(other);
      expect(answer.body.records.license_licenses).toHaveLength(1);
      expect(answer.body.records).not.toHaveProperty('license_subscriptions');
      expect(answer.body.records.license_telemetry_raw).toHaveLength(2);
      expect(answer.body.audit_references.events.map((event: { action: string }) => event.action)).toEqual(['machine.revoke']);
    });

    it('deletes a license subject whole: no identifier left, aggregates and the audit chain intact', async () => {
      const subject = await fullSubject();
      const today = new Date().toISOString().slice(0, 10);
      await rollupAnalyticsDay(bench.sql, today, new Date());
      const aggregatesBefore = await aggregates(bench);
      expect(aggregatesBefore).toContain('activation');
      const tablesBefore = await stableSnapshot(bench);

      const dryRun = await bench.call('POST', '/dsr/delete', { body: { license_id: subject.licenseId } });
      expect(dryRun.status).toBe(200);
      expect(await stableSnapshot(bench)).toBe(tablesBefore);
      expect(dryRun.body).toMatchObject({
        dry_run: true,
        subject: { kind: 'license', id: subject.licenseId },
        would_erase: { machine: 2, activation_records: 6, telemetry: 4, analytics_events: 3, suspicion_signals: 1, license_metadata: 1 },
        audit_tombstone: false,
      });

      const key = freshKey();
      const erased = await bench.call('POST', '/dsr/delete', { body: { license_id: subject.licenseId }, query: { dry_run: 'false' }, key });
      expect(erased.status).toBe(200);
      expect(erased.body).toMatchObject({ ok: true, dry_run: false, erased: dryRun.body.would_erase, scan: dryRun.body.scan, audit_tombstone: false });
      expect(Object.keys(await tablesMentioning(bench, needlesOf(subject, false)))).toEqual(retainedForMachine);
      const licenseLeft = Object.keys(await tablesMentioning(bench, [subject.licenseId, analyticsPseudonym(analyticsKeys, 'license', subject.licenseId)]));
      expect(licenseLeft.filter((table) => !retainedForLicense.includes(table))).toEqual([]);
      const { rows } = await bench.sql.query<{ metadata: unknown }>('SELECT metadata FROM license_licenses WHERE license_id = $1', [subject.licenseId]);
      expect(rows[0]?.metadata).toEqual({});
      expect(await aggregates(bench)).toBe(aggregatesBefore);
      expect((await bench.call('POST', '/audit/verify', { body: {} })).body).toMatchObject({ verified: true, first_broken: null });
      const audit = await bench.call('GET', '/audit', { query: { target_type: 'license', target_id: subject.licenseId } });
      expect(audit.body.events.map((event: { action: string }) => event.action)).toContain('license.erase');

      // A replay answers the stored response; the subject still exists (the license row) and erases nothing more.
      expect((await bench.call('POST', '/dsr/delete', { body: { license_id: subject.licenseId }, query: { dry_run: 'false' }, key })).text).toBe(erased.text);
      const again = await bench.call('POST', '/dsr/delete', { body: { license_id: subject.licenseId }, query: { dry_run: 'false' }, key: freshKey() });
      expect(again.body.erased).toEqual({ suspicion_signals: 0, license_metadata: 0 });
    });

    it('DELETE /machines/{id} is DSR delete for a machine: same answer, same effects, same audit event', async () => {
      const first = await fullSubject();
      const second = await fullSubject();
      const viaMachines = await bench.call('DELETE', `/machines/${first.machineIds[1]}`, { query: { dry_run: 'false' }, key: freshKey() });
      const viaDsr = await bench.call('POST', '/dsr/delete', { body: { machine_id: second.machineIds[1] }, query: { dry_run: 'false' }, key: freshKey() });
      expect(viaMachines.status).toBe(200);
      const neutral = (text: string, subject: SeededSubject) => text.replaceAll(subject.machineIds[1] as string, 'M').replaceAll(subject.licenseId, 'L');
      expect(neutral(viaMachines.text, first)).toBe(neutral(viaDsr.text, second));
      expect(viaMachines.body).toMatchObject({ subject: { kind: 'machine' }, erased: { machine: 1, activation_records: 3, telemetry: 2, analytics_events: 2 }, audit_tombstone: false });
      for (const subject of [first, second]) {
        const gone = subject.machineIds[1] as string;
        expect(Object.keys(await tablesMentioning(bench, [gone, subject.telemetrySubjects[1] as string, analyticsPseudonym(analyticsKeys, 'device', gone)]))).toEqual(['license_audit_events']);
        // The other machine of the license keeps all of its data.
        expect((await tablesMentioning(bench, [subject.machineIds[0] as string])).license_machines).toBe(1);
      }
      const summaries = await bench.sql.query<{ target_id: string; summary: string }>("SELECT target_id, summary FROM license_audit_events WHERE action = 'machine.erase' AND target_id = ANY($1::text[])", [
        [first.machineIds[1], second.machineIds[1]],
      ]);
      const summaryOf = (subject: SeededSubject) => neutral(summaries.rows.find((row) => row.target_id === subject.machineIds[1])?.summary ?? 'missing', subject);
      expect(summaries.rows).toHaveLength(2);
      expect(summaryOf(first)).toBe(summaryOf(second));
      expect((await bench.call('POST', '/audit/verify', { body: {} })).body.verified).toBe(true);
    });

    it('refuses bad requests with the envelope and other vendors’ subjects as not found', async () => {
      const subject = await seedSubject(bench, bench.vendorA, 1);
      const bodies: unknown[] = [{}, { machine_id: subject.machineIds[0], license_id: subject.licenseId }, { machine_id: 'XYZ' }, { license_id: 7 }, { license_id: subject.licenseId, extra: 1 }, [], null];
      for (const path of ['/dsr/export', '/dsr/delete']) {
        for (const body of bodies) {
          const answer = await bench.call('POST', path, { body });
          expect([answer.status, answer.body.ok, answer.body.error.code], `${path} ${JSON.stringify(body)}`).toEqual([400, false, 'invalid_request']);
        }
        const unknown = await bench.call('POST', path, { body: { machine_id: 'ab'.repeat(16) } });
        expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
        for (const body of [{ machine_id: subject.machineIds[0] }, { license_id: subject.licenseId }]) {
          const foreign = await bench.call('POST', path, { token: bench.vendorB.token, body, query: { dry_run: 'false' }, key: freshKey() });
          expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
        }
      }
      const machinesOnly = await bench.tokenWith(bench.vendorA, ['machines:rw']);
      expect((await bench.call('POST', '/dsr/export', { token: machinesOnly, body: { license_id: subject.licenseId } })).status).toBe(403);
      expect((await bench.call('DELETE', `/machines/${subject.machineIds[0]}`, { token: machinesOnly })).status).toBe(200);
      const both = await bench.call('POST', '/dsr/delete', { body: { machine_id: subject.machineIds[0] }, query: { dry_run: 'false' } });
      expect([both.status, both.body.error.code]).toEqual([400, 'invalid_request']);
      expect((await tablesMentioning(bench, [subject.machineIds[0] as string])).license_machines).toBe(1);
    });
  });
}
