/**
 * Seeded fuzz of `POST /webhooks/*`: unsigned junk (random bytes, paths, headers, content types) and
 * correctly signed but mutated or randomly shaped events. No answer may be a 5xx, every error answer
 * is the JSON envelope, and every event the route accepted is then processed by the job (none is left
 * failing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutateBytes, seededRandom, type SeededRandom } from '@tollgate/core/testing';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { issueLicenses, seedPolicy } from '../admin/admin-license-fixtures';
import { serverEngines } from '../helpers';
import { billingEnv, billingEventId, checkoutToken, lemonEvent, paddleEvent, postWebhook, signatureHeaders, stripeEvent, stripeSubscription, type Provider } from './billing-fixtures';

const providers: Provider[] = ['stripe', 'paddle', 'lemonsqueezy'];
const paths = ['stripe', 'paddle', 'lemonsqueezy', 'Stripe', 'stripe/extra', '', 'stripe%2Fx', '%41', 'lemonsqueezy%00', 'paddle?x=1', 'x'.repeat(300)];
const contentTypes = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'application/cbor', '', 'application/json; charset=latin1'];

/** A random JSON-ish value for a field the parser reads. */
function randomValue(random: SeededRandom, licenseIds: readonly string[]): unknown {
  switch (random.int(9)) {
    case 0:
      return null;
    case 1:
      return random.int(2) === 0;
    case 2:
      return random.pick([0, -1, 1.5, 1e300, Number.MAX_SAFE_INTEGER, Math.floor(Date.now() / 1000)]);
    case 3:
      return random.pick(['', 'active', 'past_due', 'canceled', 'cancelled', 'unpaid', 'approved', 'refund', 'chargeback', 'x'.repeat(500)]);
    case 4:
      return random.pick(['0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z', new Date().toISOString(), '2025-13-45T99:99:99Z']);
    case 5:
      return random.pick(licenseIds);
    case 6:
      return [random.int(10)];
    case 7:
      return { tollgate_license_id: random.pick(licenseIds), tollgate_policy_id: random.pick(licenseIds), tollgate_account_id: 'ab'.repeat(16) };
    default:
      return `id_${random.int(1_000_000)}`;
  }
}

/** A signed, recognised-looking event with random values in the fields the parser reads. */
function randomEvent(random: SeededRandom, licenseIds: readonly string[], tokens: readonly string[]): { provider: Provider; payload: Record<string, unknown> } {
  // Each field keeps a plausible value two times in three, so most events get past the parser.
  const maybe = (plausible: unknown) => (random.int(3) === 0 ? randomValue(random, licenseIds) : plausible);
  const now = Math.floor(Date.now() / 1000);
  const iso = new Date(Date.now() + 86_400_000).toISOString();
  // Valid checkout tokens, tampered ones, and the plain ids the server now ignores.
  const token = random.pick(tokens);
  const mapping = random.pick([{ tollgate_checkout: token }, { tollgate_checkout: `${token.slice(0, -2)}AA` }, { tollgate_license_id: random.pick(licenseIds) }]);
  const provider = random.pick(providers);
  if (provider === 'stripe') {
    const type = random.pick(['customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.deleted', 'invoice.paid', 'charge.refunded', 'charge.dispute.created']);
    const object = stripeSubscription(String(maybe(`sub_${random.int(20)}`)), {
      status: maybe(random.pick(['active', 'past_due', 'canceled', 'trialing'])),
      current_period_end: maybe(now + 86_400),
      cancel_at_period_end: maybe(false),
      ended_at: maybe(now),
      metadata: maybe(mapping),
      refunded: maybe(true),
      charge: maybe(`ch_${random.int(20)}`),
      subscription: maybe(`sub_${random.int(20)}`),
    });
    const event = stripeEvent(type, object, maybe(now - random.int(100)) as number);
    event['id'] = maybe(event['id']);
    return { provider, payload: event };
  }
  if (provider === 'paddle') {
    const type = random.pick(['subscription.created', 'subscription.updated', 'subscription.canceled', 'subscription.past_due', 'adjustment.created', 'adjustment.updated']);
    const data = {
      id: maybe(`sub_${random.int(20)}`),
      status: maybe(random.pick(['active', 'past_due', 'canceled', 'approved'])),
      action: maybe(random.pick(['refund', 'chargeback', 'credit'])),
      type: maybe('full'),
      current_billing_period: maybe({ ends_at: maybe(iso) }),
      scheduled_change: maybe(null),
      custom_data: maybe(mapping),
      subscription_id: maybe(`sub_${random.int(20)}`),
      canceled_at: maybe(iso),
    };
    const event = paddleEvent(type, data);
    event['occurred_at'] = maybe(event['occurred_at']);
    return { provider, payload: event };
  }
  const name = random.pick(['subscription_created', 'subscription_updated', 'subscription_cancelled', 'subscription_expired', 'subscription_payment_refunded', 'order_refunded']);
  const attributes = {
    status: maybe(random.pick(['active', 'cancelled', 'expired', 'past_due', 'refunded'])),
    renews_at: maybe(iso),
    ends_at: maybe(iso),
    updated_at: maybe(new Date().toISOString()),
    refunded: maybe(true),
    subscription_id: maybe(random.int(20)),
  };
  return { provider, payload: lemonEvent(name, { id: maybe(String(random.int(20))), type: 'subscriptions', attributes }, maybe(mapping) as Record<string, unknown>) };
}

for (const engine of serverEngines) {
  describe(`billing webhooks fuzz [${engine.name}]`, () => {
    let bench: AdminHarness;
    let licenseIds: string[];
    let tokens: string[];
    beforeAll(async () => {
      bench = await openAdminHarness(engine, billingEnv);
      const policyId = await seedPolicy(bench, bench.vendorA);
      licenseIds = (await issueLicenses(bench, policyId, { count: 3 })).map((license) => license.license_id);
      tokens = await Promise.all(licenseIds.map((licenseId) => checkoutToken(bench, { license_id: licenseId })));
    }, 120_000);
    afterAll(() => bench?.close());

    it('never answers 5xx, always in the envelope, and processes whatever it accepted', async () => {
      const random = seededRandom(0xb111);
      const accepted: { provider: Provider; eventId: string }[] = [];
      for (let index = 0; index < 240; index += 1) {
        let answer;
        if (index % 3 === 0) {
          const body = Buffer.from(random.bytes(random.int(400)));
          const headers: Record<string, string> = { 'content-type': random.pick(contentTypes) };
          if (random.int(2) === 0) headers[random.pick(['stripe-signature', 'paddle-signature', 'x-signature'])] = random.pick(['t=1,v1=00', 'ts=1;h1=zz', 'deadbeef', '=', 't=,v1=', Buffer.from(random.bytes(40)).toString('latin1').replace(/[^\x20-\x7e]/g, '')]);
          answer = await postWebhook(bench.url, random.pick(paths), body, headers);
        } else {
          const { provider, payload } = randomEvent(random, licenseIds, tokens);
          let body = Buffer.from(JSON.stringify(payload));
          if (index % 3 === 1 && random.int(2) === 0) body = Buffer.from(mutateBytes(random, body));
          answer = await postWebhook(bench.url, provider, body, signatureHeaders(provider, body));
          if (answer.status === 202) {
            accepted.push({ provider, eventId: billingEventId(provider, payload) });
          }
        }
        expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
        if (answer.status >= 400) expect(answer.body).toMatchObject({ ok: false, error: { code: expect.any(String), message: expect.any(String) } });
        expect(answer.headers.get('cache-control')).toBe('no-store');
      }
      expect(accepted.length).toBeGreaterThan(10);
      // Every accepted event is applied without a failed attempt (nothing the parser let in breaks the worker).
      for (let round = 0; round < 300; round += 1) {
        const { rows } = await bench.sql.query<{ open: string }>("SELECT count(*) AS open FROM license_billing_events WHERE status <> 'processed'");
        if (Number(rows[0]?.open) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const { rows } = await bench.sql.query<{ status: string; attempts: number; last_error: string | null }>('SELECT status, attempts, last_error FROM license_billing_events');
      expect(rows.filter((row) => row.status !== 'processed' || row.last_error !== null || Number(row.attempts) !== 1)).toEqual([]);
      expect(rows.length).toBe(accepted.length);
    }, 180_000);
  });
}
