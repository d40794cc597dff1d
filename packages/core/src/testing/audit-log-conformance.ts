import { expect, it } from 'vitest';
import { AdminError } from '../errors/admin';
import { auditChainLink, auditEventHash, auditGenesisHash } from '../license/admin/audit/audit-chain';
import type { AuditEvent, AuditEventInput, AuditLog } from '../license/admin/audit/audit-log';
import type { SqlClient } from '../storage/sql-client';
import { describeConformance, type ConformanceFixture, type ConformanceSuiteOptions } from './conformance';
import { raceCase, type RaceFixture } from './race-case';

/** What the audit log suite opens: the log, the database its `append` transactions run on, and vendors. */
export interface AuditLogConformanceFixture extends ConformanceFixture, RaceFixture {
  readonly sql: SqlClient;
  readonly audit: AuditLog;
  /** Creates a vendor the log may hold events of, and returns its id (32 lower-case hex digits). */
  createVendor(): Promise<string>;
}

const t0 = Date.UTC(2026, 2, 1, 12);

function eventFor(vendorId: string, n: number, overrides: Partial<AuditEventInput> = {}): AuditEventInput {
  return { vendorId, actor: 'ab'.repeat(16), action: 'license.patch', targetType: 'license', targetId: `lic-${n % 3}`, summary: { n, seats: 5 }, ...overrides };
}

/**
 * Conformance suite of the {@link AuditLog} port: seqs and links of appended events, atomicity with the
 * caller's transaction, redaction, per-vendor chains, newest-first listing with target filters and
 * cursors, verification windows, and a race case (20 appends of one vendor in 20 concurrent
 * transactions still form one unforked chain) that runs only where there is real concurrency.
 *
 * @param options - `name` and `open()` returning the log over an empty database.
 * @example
 * ```ts
 * import { describeAuditLogConformance } from '@tollgate/core/testing';
 * describeAuditLogConformance({ name: 'pglite', open: async () => ({ sql, audit: createSqlAuditLog(sql), createVendor }) });
 * ```
 */
export function describeAuditLogConformance(options: ConformanceSuiteOptions<AuditLogConformanceFixture>): void {
  describeConformance('AuditLog', options, (fixture) => {
    const append = (event: AuditEventInput, at = t0) => fixture().sql.transaction((tx) => fixture().audit.append(tx, event, at));
    const appendMany = async (vendorId: string, count: number): Promise<AuditEvent[]> => {
      const events: AuditEvent[] = [];
      for (let n = 1; n <= count; n += 1) events.push(await append(eventFor(vendorId, n), t0 + n));
      return events;
    };

    it('numbers events from 1 and links each to the previous hash', async () => {
      const vendorId = await fixture().createVendor();
      const events = await appendMany(vendorId, 3);
      expect(events.map((event) => event.seq)).toEqual([1, 2, 3]);
      expect(events.map((event) => event.prevHash)).toEqual([auditGenesisHash, events[0]?.hash, events[1]?.hash]);
      for (const event of events) expect(auditEventHash(auditChainLink(event))).toBe(event.hash);
      expect(events[1]).toMatchObject({ vendorId, actor: 'ab'.repeat(16), action: 'license.patch', targetType: 'license', targetId: 'lic-2', summary: { n: 2, seats: 5 }, at: t0 + 2 });
    });

    it('commits an event exactly with the transaction it was appended in', async () => {
      const vendorId = await fixture().createVendor();
      await expect(
        fixture().sql.transaction(async (tx) => {
          await fixture().audit.append(tx, eventFor(vendorId, 1), t0);
          throw new Error('the mutation failed');
        }),
      ).rejects.toThrow('the mutation failed');
      expect((await fixture().audit.list(vendorId, { limit: 10 })).events).toEqual([]);
      expect((await append(eventFor(vendorId, 2))).seq).toBe(1);
    });

    it('stores and hashes the redacted summary', async () => {
      const vendorId = await fixture().createVendor();
      const appended = await append(eventFor(vendorId, 1, { summary: { email: 'a@b.example', password: 'hunter2', license_key: { value: 'K-1', valid: true } } }));
      const expected = { email: 'a@b.example', password: '[redacted]', license_key: { value: '[redacted]', valid: true } };
      expect(appended.summary).toEqual(expected);
      const [listed] = (await fixture().audit.list(vendorId, { limit: 1 })).events;
      expect(listed?.summary).toEqual(expected);
      expect(auditEventHash(auditChainLink(listed as AuditEvent))).toBe(appended.hash);
    });

    it('refuses a malformed event and stores nothing', async () => {
      const vendorId = await fixture().createVendor();
      const refusals = [eventFor('not-a-vendor', 1), eventFor(vendorId, 1, { actor: '' }), eventFor(vendorId, 1, { targetType: 'Bad Type' }), eventFor(vendorId, 1, { summary: { at: new Date(0) } })];
      for (const event of refusals) await expect(append(event)).rejects.toThrow(TypeError);
      await expect(append(eventFor(vendorId, 1), 1.5)).rejects.toThrow(TypeError);
      expect(await fixture().audit.verify(vendorId)).toEqual({ verified: true, event_count: 0, head: null, first_broken: null });
    });

    it('keeps one chain per vendor', async () => {
      const [a, b] = [await fixture().createVendor(), await fixture().createVendor()];
      await appendMany(a, 2);
      const [first] = await appendMany(b, 1);
      expect(first).toMatchObject({ seq: 1, prevHash: auditGenesisHash });
      expect((await fixture().audit.list(b, { limit: 10 })).events.map((event) => event.vendorId)).toEqual([b]);
      expect(await fixture().audit.verify(a)).toMatchObject({ verified: true, event_count: 2 });
    });

    it('lists newest first, filters by target, and pages with opaque cursors', async () => {
      const vendorId = await fixture().createVendor();
      const events = await appendMany(vendorId, 7);
      const seen: number[] = [];
      let cursor: string | undefined;
      do {
        const page = await fixture().audit.list(vendorId, { limit: 3, ...(cursor === undefined ? {} : { cursor }) });
        seen.push(...page.events.map((event) => event.seq));
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1]);
      const filtered = await fixture().audit.list(vendorId, { targetType: 'license', targetId: 'lic-1', limit: 200 });
      expect(filtered).toEqual({ events: [events[6], events[3], events[0]], nextCursor: null });
      expect((await fixture().audit.list(vendorId, { targetType: 'machine', limit: 10 })).events).toEqual([]);
      expect((await fixture().audit.list(vendorId, { targetId: 'lic-2', limit: 10 })).events.map((event) => event.seq)).toEqual([5, 2]);
    });

    it('refuses a malformed cursor or a limit outside 1..200 with invalid_request', async () => {
      const vendorId = await fixture().createVendor();
      for (const cursor of ['', '!!', 'bm90LWEtc2Vx', 'MDE', 'a'.repeat(300)]) {
        await expect(fixture().audit.list(vendorId, { cursor, limit: 10 })).rejects.toSatisfy((error) => error instanceof AdminError && error.code === 'invalid_request');
      }
      for (const limit of [0, 201, 1.5]) {
        await expect(fixture().audit.list(vendorId, { limit })).rejects.toSatisfy((error) => error instanceof AdminError && error.code === 'invalid_request');
      }
    });

    it('verifies the whole chain, or a window of it', async () => {
      const vendorId = await fixture().createVendor();
      expect(await fixture().audit.verify(vendorId)).toEqual({ verified: true, event_count: 0, head: null, first_broken: null });
      const events = await appendMany(vendorId, 6);
      expect(await fixture().audit.verify(vendorId)).toEqual({ verified: true, event_count: 6, head: events[5]?.hash, first_broken: null });
      expect(await fixture().audit.verify(vendorId, { fromSeq: 3, limit: 2 })).toEqual({ verified: true, event_count: 2, head: events[3]?.hash, first_broken: null });
      expect(await fixture().audit.verify(vendorId, { limit: 50_000 })).toMatchObject({ verified: true, event_count: 6 });
      expect(await fixture().audit.verify(vendorId, { fromSeq: 40 })).toEqual({ verified: true, event_count: 0, head: null, first_broken: null });
      await expect(fixture().audit.verify(vendorId, { fromSeq: 0 })).rejects.toSatisfy((error) => error instanceof AdminError && error.code === 'invalid_request');
    });

    raceCase('serialises 20 concurrent appends of one vendor into one unforked chain', fixture, async () => {
      const vendorId = await fixture().createVendor();
      const appended = await Promise.all(Array.from({ length: 20 }, (_, index) => append(eventFor(vendorId, index + 1), t0 + index)));
      const bySeq = [...appended].sort((a, b) => a.seq - b.seq);
      expect(bySeq.map((event) => event.seq)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
      bySeq.forEach((event, index) => expect(event.prevHash).toBe(index === 0 ? auditGenesisHash : bySeq[index - 1]?.hash));
      expect(await fixture().audit.verify(vendorId)).toEqual({ verified: true, event_count: 20, head: bySeq[19]?.hash, first_broken: null });
    });
  });
}
