import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditEventHash, auditGenesisHash, createSqlAuditLog, type AuditEvent, type AuditLog } from '@tollgate/core/license';
import { describeAuditLogConformance, raceCase, testDatabaseEngines, type TestDatabase } from '@tollgate/core/testing';
import { createTestVendor, tamper } from './audit-test-helpers';
import { openLicenseTestDatabase } from '../license-test-database';

const t0 = Date.UTC(2026, 2, 1, 12);

for (const engine of await testDatabaseEngines()) {
  describeAuditLogConformance({
    name: `sql/${engine.name}`,
    open: async () => {
      const database = await openLicenseTestDatabase(engine);
      return { ...database, audit: createSqlAuditLog(database.sql), createVendor: () => createTestVendor(database.sql) };
    },
  });

  describe(`SQL audit log: tampering and limits [${engine.name}]`, () => {
    let database: TestDatabase;
    let audit: AuditLog;
    beforeAll(async () => {
      database = await openLicenseTestDatabase(engine);
      audit = createSqlAuditLog(database.sql);
    });
    afterAll(() => database.close());
    beforeEach(() => database.reset());

    const chainOfFive = async (): Promise<{ vendorId: string; events: AuditEvent[] }> => {
      const vendorId = await createTestVendor(database.sql);
      const events: AuditEvent[] = [];
      for (let n = 1; n <= 5; n += 1) {
        events.push(await database.sql.transaction((tx) => audit.append(tx, { vendorId, actor: 'ab'.repeat(16), action: 'license.patch', targetType: 'license', targetId: `lic-${n}`, summary: { n } }, t0 + n)));
      }
      return { vendorId, events };
    };

    // Each change of one stored column of event `seq` must be reported at exactly that seq.
    const columnChanges: Record<string, string> = {
      actor: `actor = 'mallory'`,
      action: `action = 'license.create'`,
      target_type: `target_type = 'machine'`,
      target_id: `target_id = 'lic-other'`,
      summary: `summary = '{"n":99}'`,
      'summary (same JSON, other spelling)': `summary = '{ "n": ' || seq || ' }'`,
      at: `at = at + interval '1 second'`,
      'at (by one microsecond)': `at = at + interval '1 microsecond'`,
      prev_hash: `prev_hash = decode(repeat('ee', 32), 'hex')`,
      hash: `hash = decode(repeat('ee', 32), 'hex')`,
      seq: `seq = seq + 100`,
    };

    for (const [column, assignment] of Object.entries(columnChanges)) {
      it(`reports a changed ${column} at the changed event`, async () => {
        for (const seq of [1, 3, 5]) {
          await database.reset();
          const { vendorId } = await chainOfFive();
          expect(await audit.verify(vendorId)).toMatchObject({ verified: true, first_broken: null });
          await tamper(database.sql, `UPDATE license_audit_events SET ${assignment} WHERE vendor_id = $1 AND seq = $2`, [vendorId, seq]);
          expect(await audit.verify(vendorId), `${column} of event ${seq}`).toMatchObject({ verified: false, first_broken: seq });
        }
      });
    }

    it('reports an event moved to another vendor at its seq', async () => {
      const { vendorId } = await chainOfFive();
      const other = await createTestVendor(database.sql);
      await tamper(database.sql, 'UPDATE license_audit_events SET vendor_id = $3 WHERE vendor_id = $1 AND seq = $2', [vendorId, 3, other]);
      expect(await audit.verify(vendorId)).toMatchObject({ verified: false, first_broken: 3 });
      expect(await audit.verify(other)).toMatchObject({ verified: false, first_broken: 1 });
    });

    it('reports deleted events and a head that does not match the last event', async () => {
      const { vendorId, events } = await chainOfFive();
      await tamper(database.sql, 'UPDATE license_audit_heads SET hash = $2 WHERE vendor_id = $1', [vendorId, new Uint8Array(32).fill(7)]);
      expect(await audit.verify(vendorId)).toMatchObject({ verified: false, event_count: 5, head: events[4]?.hash, first_broken: 5 });
      await tamper(database.sql, 'UPDATE license_audit_heads SET hash = decode($2, $3) WHERE vendor_id = $1', [vendorId, events[4]?.hash, 'hex']);
      await tamper(database.sql, 'DELETE FROM license_audit_events WHERE vendor_id = $1 AND seq >= 4', [vendorId]);
      expect(await audit.verify(vendorId)).toMatchObject({ verified: false, event_count: 3, first_broken: 4 });
      expect(await audit.verify(vendorId, { fromSeq: 5 })).toMatchObject({ verified: false, event_count: 0, first_broken: 5 });
    });

    it('refuses updates and deletes of events and anchors, and a head that does not move forward by one', async () => {
      const { vendorId } = await chainOfFive();
      const refused = { code: '23000' };
      await expect(database.sql.query(`UPDATE license_audit_events SET actor = 'mallory' WHERE vendor_id = $1`, [vendorId])).rejects.toMatchObject(refused);
      await expect(database.sql.query('DELETE FROM license_audit_events WHERE vendor_id = $1', [vendorId])).rejects.toMatchObject(refused);
      await expect(database.sql.query('UPDATE license_audit_heads SET seq = 3 WHERE vendor_id = $1', [vendorId])).rejects.toMatchObject(refused);
      await expect(database.sql.query('UPDATE license_audit_heads SET hash = $2 WHERE vendor_id = $1', [vendorId, new Uint8Array(32)])).rejects.toMatchObject(refused);
      await expect(database.sql.query('DELETE FROM license_audit_heads WHERE vendor_id = $1', [vendorId])).rejects.toMatchObject(refused);
      await database.sql.query('INSERT INTO license_audit_anchors (vendor_id, seq, head, envelope, anchored_at) VALUES ($1, 5, $2, $3, $4)', [vendorId, new Uint8Array(32), new Uint8Array(1), new Date(0)]);
      await expect(database.sql.query('UPDATE license_audit_anchors SET seq = 4 WHERE vendor_id = $1', [vendorId])).rejects.toMatchObject(refused);
      await expect(database.sql.query('DELETE FROM license_audit_anchors WHERE vendor_id = $1', [vendorId])).rejects.toMatchObject(refused);
      expect(await audit.verify(vendorId)).toMatchObject({ verified: true, event_count: 5 });
    });

    it('refuses TRUNCATE of events, heads and anchors, also through a cascade from vendors', async () => {
      const { vendorId } = await chainOfFive();
      await database.sql.query('INSERT INTO license_audit_anchors (vendor_id, seq, head, envelope, anchored_at) VALUES ($1, 5, $2, $3, $4)', [vendorId, new Uint8Array(32), new Uint8Array(1), new Date(0)]);
      const refused = { code: '23000' };
      for (const table of ['license_audit_events', 'license_audit_heads', 'license_audit_anchors']) {
        await expect(database.sql.query(`TRUNCATE ${table}`), table).rejects.toMatchObject(refused);
      }
      await expect(database.sql.query('TRUNCATE license_vendors CASCADE')).rejects.toMatchObject(refused);
      expect(await audit.verify(vendorId)).toMatchObject({ verified: true, event_count: 5 });
      const anchors = await database.sql.query('SELECT seq FROM license_audit_anchors WHERE vendor_id = $1', [vendorId]);
      expect(anchors.rows).toHaveLength(1);
    });

    it('checks at most 10,000 events per call', async () => {
      const vendorId = await createTestVendor(database.sql);
      const count = 10_001;
      const seqs: number[] = [];
      const summaries: string[] = [];
      const times: number[] = [];
      const prevs: string[] = [];
      const hashes: string[] = [];
      let prevHash = auditGenesisHash;
      for (let seq = 1; seq <= count; seq += 1) {
        const fields = { vendorId, seq, actor: 'cli:bulk', action: 'license.patch', targetType: 'license', targetId: 'lic', summaryJson: `{"n":${seq}}`, at: t0 + seq, prevHash };
        const hash = auditEventHash(fields);
        seqs.push(seq);
        summaries.push(fields.summaryJson);
        times.push(fields.at);
        prevs.push(prevHash);
        hashes.push(hash);
        prevHash = hash;
      }
      await database.sql.query(
        `INSERT INTO license_audit_events (vendor_id, seq, actor, action, target_type, target_id, summary, at, prev_hash, hash)
         SELECT $1, s.seq, 'cli:bulk', 'license.patch', 'license', 'lic', s.summary, timestamptz 'epoch' + s.at_ms * interval '1 millisecond', decode(s.prev, 'hex'), decode(s.hash, 'hex')
         FROM unnest($2::bigint[], $3::text[], $4::bigint[], $5::text[], $6::text[]) AS s (seq, summary, at_ms, prev, hash)`,
        [vendorId, seqs, summaries, times, prevs, hashes],
      );
      await database.sql.query('INSERT INTO license_audit_heads (vendor_id, seq, hash) VALUES ($1, $2, decode($3, $4))', [vendorId, count, prevHash, 'hex']);
      expect(await audit.verify(vendorId)).toEqual({ verified: true, event_count: 10_000, head: hashes[9_999], first_broken: null });
      expect(await audit.verify(vendorId, { limit: 20_000 })).toMatchObject({ event_count: 10_000 });
      expect(await audit.verify(vendorId, { fromSeq: 9_990 })).toEqual({ verified: true, event_count: 12, head: prevHash, first_broken: null });
    });

    raceCase('never reports a break while appends commit during verification', () => ({ engine: database.engine }), async () => {
      const vendorId = await createTestVendor(database.sql);
      const appends = Array.from({ length: 30 }, (_, index) =>
        database.sql.transaction((tx) => audit.append(tx, { vendorId, actor: 'ab'.repeat(16), action: 'license.patch', targetType: 'license', targetId: 'lic', summary: { index } }, t0 + index)),
      );
      const checks = Array.from({ length: 30 }, () => audit.verify(vendorId));
      const results = await Promise.all(checks);
      await Promise.all(appends);
      for (const result of results) expect(result).toMatchObject({ verified: true, first_broken: null });
      expect(await audit.verify(vendorId)).toMatchObject({ verified: true, event_count: 30 });
    });
  });
}
