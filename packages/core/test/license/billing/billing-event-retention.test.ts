import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoicePaidEvent, openBillingTestDatabase } from '../billing-fixtures';
import { testDatabaseEngines, type TestDatabase } from '../../../src/testing';
import { ManualClock } from '../../../src/time/clock';
import type { BillingApplyDeps } from '../../../src/license/billing/apply-billing-event';
import { purgeProcessedBillingEvents } from '../../../src/license/billing/billing-event-retention';
import { createSqlBillingEventStore } from '../../../src/license/billing/billing-event-store';
import { processDueBillingEvents } from '../../../src/license/billing/process-billing-events';

const day = 86_400_000;

for (const engine of await testDatabaseEngines()) {
  describe(`purgeProcessedBillingEvents [${engine.name}]`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openBillingTestDatabase(engine);
    }, 120_000);
    afterAll(() => database?.close());

    it('deletes processed rows older than the cut-off in batches, keeping newer, pending and dead rows', async () => {
      const store = createSqlBillingEventStore(database.sql);
      const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
      const deps = { sql: database.sql, clock, apply: async () => ({ outcome: 'payment_recorded', licenseId: null }) } as unknown as BillingApplyDeps & { sql: typeof database.sql; clock: ManualClock };
      for (const id of ['old_1', 'old_2', 'old_3']) await store.accept(invoicePaidEvent(id), new Date(clock.now()));
      expect(await processDueBillingEvents(deps)).toHaveLength(3);
      clock.advance(40 * day);
      await store.accept(invoicePaidEvent('recent'), new Date(clock.now()));
      expect(await processDueBillingEvents(deps)).toHaveLength(1);
      await store.accept(invoicePaidEvent('pending'), new Date(clock.now() + day));
      await database.sql.query("INSERT INTO license_billing_events (provider, event_id, event_type, event, status, attempts, next_attempt_at, received_at) VALUES ('stripe', 'dead', 'invoice.paid', '{}', 'dead', 30, $1, $1)", [new Date(0)]);
      const cutOff = new Date(clock.now() - 30 * day);
      expect(await purgeProcessedBillingEvents(database.sql, cutOff, 2)).toBe(2);
      expect(await purgeProcessedBillingEvents(database.sql, cutOff, 2)).toBe(1);
      expect(await purgeProcessedBillingEvents(database.sql, cutOff, 2)).toBe(0);
      const { rows } = await database.sql.query<{ event_id: string }>('SELECT event_id FROM license_billing_events ORDER BY event_id');
      expect(rows.map((row) => row.event_id)).toEqual(['dead', 'pending', 'recent']);
    });
  });
}
