/**
 * Shared pieces of the billing queue suites (`src/license/billing/*.test.ts`): a database with the
 * license migrations, and a normalised `invoice.paid` event to queue.
 */
import type { BillingEvent } from '../../src/license/billing/billing-event';
import { licenseMigrations } from '../../src/license/storage/license-migrations';
import { coreMigrations } from '../../src/storage/migrations/core-migrations';
import { openTestDatabase, type TestDatabase, type TestEngine } from '../../src/testing';

/**
 * Opens a database with the core and license migrations (the billing event queue is migration 017).
 *
 * @param engine - The test engine.
 * @returns The database; `close()` it in `afterAll`.
 */
export function openBillingTestDatabase(engine: TestEngine): Promise<TestDatabase> {
  return openTestDatabase({ engine, migrations: [coreMigrations, licenseMigrations] });
}

/**
 * A Stripe `invoice.paid` of subscription `sub_1`, as the webhook route normalises it.
 *
 * @param eventId - The provider's event id (the queue's key with the provider).
 * @param paymentRefs - The payments it records.
 * @returns The event.
 */
export const invoicePaidEvent = (eventId: string, paymentRefs: string[] = []): BillingEvent => ({
  provider: 'stripe',
  eventId,
  eventType: 'invoice.paid',
  occurredAt: 1_000,
  effect: 'record_payment',
  subscriptionId: 'sub_1',
  status: null,
  periodEnd: null,
  reversal: null,
  paymentRefs,
  mapping: { checkoutToken: null, priceIds: [] },
});
