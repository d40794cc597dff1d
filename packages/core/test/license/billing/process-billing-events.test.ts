import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoicePaidEvent, openBillingTestDatabase } from '../billing-fixtures';
import { testDatabaseEngines, type TestDatabase } from '../../../src/testing';
import { ManualClock } from '../../../src/time/clock';
import type { BillingApplyDeps } from '../../../src/license/billing/apply-billing-event';
import { createSqlBillingEventStore } from '../../../src/license/billing/billing-event-store';
import { processDueBillingEvents } from '../../../src/license/billing/process-billing-events';

// Applying is injected: these cases are about the queue (claim, rollback, backoff, dead-letter), not license state.
const unusedDeps = {} as unknown as BillingApplyDeps;

for (const engine of await testDatabaseEngines()) {
  describe(`processDueBillingEvents [${engine.name}]`, () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await openBillingTestDatabase(engine);
    }, 120_000);
    afterAll(() => database?.close());

    const marker = async () => (await database.sql.query('SELECT 1 FROM license_billing_payments WHERE payment_ref = $1', ['written-then-failed'])).rows.length;

    it('rolls back what a failing attempt wrote, retries after a jittered backoff, then applies once', async () => {
      const clock = new ManualClock(10_000_000);
      await createSqlBillingEventStore(database.sql).accept(invoicePaidEvent('evt_retry', ['ch_1']), new Date(clock.now()));
      let fail = true;
      const deps = {
        ...unusedDeps,
        sql: database.sql,
        clock,
        jitter: () => 0.5,
        apply: async (tx: typeof database.sql) => {
          // A write, then a failure: as if the process had died mid-way through the event.
          await tx.query("INSERT INTO license_billing_payments (provider, payment_ref, subscription_id, created_at) VALUES ('stripe', 'written-then-failed', 'sub_1', now())");
          if (fail) throw new Error('license row busy');
          return { outcome: 'payment_recorded', licenseId: null };
        },
      };
      const first = await processDueBillingEvents(deps);
      expect(first).toEqual([{ kind: 'failed', provider: 'stripe', eventId: 'evt_retry', error: 'Error: license row busy', retryAt: new Date(clock.now() + 2_500) }]);
      expect(await marker()).toBe(0);
      const stored = await createSqlBillingEventStore(database.sql).get('stripe', 'evt_retry');
      expect(stored).toMatchObject({ status: 'pending', attempts: 1, lastError: 'Error: license row busy' });
      // Not due before the backoff has passed.
      expect(await processDueBillingEvents(deps)).toEqual([]);
      clock.advance(2_500);
      fail = false;
      expect(await processDueBillingEvents(deps)).toEqual([{ kind: 'processed', provider: 'stripe', eventId: 'evt_retry', outcome: 'payment_recorded', licenseId: null }]);
      expect(await marker()).toBe(1);
      expect(await createSqlBillingEventStore(database.sql).get('stripe', 'evt_retry')).toMatchObject({ status: 'processed', attempts: 2, outcome: 'payment_recorded', lastError: null });
      expect(await processDueBillingEvents(deps)).toEqual([]);
    });

    it('dead-letters an event after its last attempt', async () => {
      const clock = new ManualClock(20_000_000);
      await createSqlBillingEventStore(database.sql).accept(invoicePaidEvent('evt_dead', ['ch_1']), new Date(clock.now()));
      const deps = { ...unusedDeps, sql: database.sql, clock, jitter: () => 0, maxAttempts: 2, apply: () => Promise.reject(new Error('always')) };
      const rounds = [...(await processDueBillingEvents(deps)), ...(await processDueBillingEvents(deps))];
      expect(rounds.map((round) => (round.kind === 'failed' ? round.retryAt : 'processed'))).toEqual([new Date(clock.now()), null]);
      expect(await createSqlBillingEventStore(database.sql).get('stripe', 'evt_dead')).toMatchObject({ status: 'dead', attempts: 2 });
      expect(await processDueBillingEvents(deps)).toEqual([]);
    });

    it('queues one row per (provider, event id) and reports a redelivery as a duplicate', async () => {
      const store = createSqlBillingEventStore(database.sql);
      const outcomes = await Promise.all(Array.from({ length: 8 }, () => store.accept(invoicePaidEvent('evt_twice', ['ch_1']), new Date())));
      expect(outcomes.filter((outcome) => outcome.kind === 'queued')).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome.kind === 'duplicate')).toHaveLength(7);
    });
  });
}
