/**
 * `POST /webhooks/{stripe|paddle|lemonsqueezy}` over HTTP: signatures built as each provider documents
 * them, the ±5-minute window, a body changed by one byte, rolled secrets, unknown events, the 64 KiB
 * cap, duplicates, unconfigured and unknown providers, and the wire rules (JSON envelope, no CORS,
 * no-store). The queue is observed in `license_billing_events`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { billingEnv, billingEventId, eventRow, freshId, lemonEvent, paddleEvent, postWebhook, secrets, sendEvent, signatureHeaders, stripeEvent, stripeSubscription, type Provider } from './billing-fixtures';

const recognised: Record<Provider, () => Record<string, unknown>> = {
  stripe: () => stripeEvent('customer.subscription.created', stripeSubscription(freshId('sub'))),
  paddle: () => paddleEvent('subscription.created', { id: freshId('sub'), status: 'active', current_billing_period: { ends_at: new Date(Date.now() + 86_400_000).toISOString() } }),
  lemonsqueezy: () => lemonEvent('subscription_created', { id: String(Date.now()), type: 'subscriptions', attributes: { status: 'active', updated_at: new Date().toISOString() } }),
};
const eventIdOf = billingEventId;
const providers: Provider[] = ['stripe', 'paddle', 'lemonsqueezy'];

for (const engine of serverEngines) {
  describe(`billing webhooks over HTTP [${engine.name}]`, () => {
    let bench: AdminHarness;
    // The worker is off: these cases look at acceptance only (processing has its own suite).
    beforeAll(async () => {
      bench = await openAdminHarness(engine, { ...billingEnv, BILLING_WORKER: 'false', BILLING_PADDLE_SECRETS: '' });
    }, 120_000);
    afterAll(() => bench?.close());

    it('accepts each provider signature built as documented (202, queued), with the wire rules', async () => {
      for (const provider of providers.filter((name) => name !== 'paddle')) {
        const payload = recognised[provider]();
        const answer = await sendEvent(bench.url, provider, payload);
        expect(answer.status, JSON.stringify(answer.body)).toBe(202);
        expect(answer.body).toEqual({ ok: true, accepted: true });
        expect(answer.headers.get('cache-control')).toBe('no-store');
        expect(answer.headers.get('access-control-allow-origin')).toBeNull();
        expect((await eventRow(bench.sql, provider, eventIdOf(provider, payload)))?.status).toBe('pending');
      }
    });

    it('answers 503 for a provider without a configured secret and 404 for an unknown provider', async () => {
      const answer = await sendEvent(bench.url, 'paddle', recognised.paddle());
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ ok: false, error: { code: 'service_unavailable' } });
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const unknown = await postWebhook(bench.url, 'paypal', Buffer.from('{}'));
      expect([unknown.status, unknown.body.error.code]).toEqual([404, 'not_found']);
      const get = await fetch(new URL('/webhooks/stripe', bench.url));
      expect(get.status).toBe(405);
      expect(get.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('refuses a bad signature, a body changed by one byte, a missing header and a replay outside ±5 minutes (401 invalid_signature), queueing nothing', async () => {
      const payload = recognised.stripe();
      const body = Buffer.from(JSON.stringify(payload));
      const headers = signatureHeaders('stripe', body);
      const changed = Buffer.from(body);
      changed[changed.length - 2] = (changed[changed.length - 2] as number) ^ 0x20;
      const lemonBody = Buffer.from(JSON.stringify(recognised.lemonsqueezy()));
      const lemonChanged = Buffer.from(lemonBody);
      lemonChanged[10] = (lemonChanged[10] as number) ^ 0x01;
      const attempts = [
        await postWebhook(bench.url, 'stripe', changed, headers),
        await postWebhook(bench.url, 'stripe', body, signatureHeaders('stripe', body, { secret: 'whsec_someone_else' })),
        await postWebhook(bench.url, 'stripe', body),
        await postWebhook(bench.url, 'stripe', body, signatureHeaders('stripe', body, { at: Math.floor(Date.now() / 1000) - 6 * 60 })),
        await postWebhook(bench.url, 'stripe', body, signatureHeaders('stripe', body, { at: Math.floor(Date.now() / 1000) + 6 * 60 })),
        await postWebhook(bench.url, 'lemonsqueezy', lemonChanged, signatureHeaders('lemonsqueezy', lemonBody)),
      ];
      for (const answer of attempts) {
        expect(answer.status).toBe(401);
        expect(answer.body).toMatchObject({ ok: false, error: { code: 'invalid_signature' } });
        expect(answer.headers.get('cache-control')).toBe('no-store');
      }
      expect(await eventRow(bench.sql, 'stripe', payload['id'] as string)).toBeUndefined();
    });

    it('accepts both secrets of a roll in progress, and no other', async () => {
      for (const secret of secrets.stripe) {
        const answer = await sendEvent(bench.url, 'stripe', recognised.stripe(), { secret });
        expect(answer.status).toBe(202);
      }
      expect((await sendEvent(bench.url, 'stripe', recognised.stripe(), { secret: 'whsec_retired_secret' })).status).toBe(401);
    });

    it('answers an unknown event 200 ignored, without queueing it', async () => {
      const payload = stripeEvent('customer.tax_id.created', { id: 'txi_1' });
      const answer = await sendEvent(bench.url, 'stripe', payload);
      expect([answer.status, answer.body]).toEqual([200, { ok: true, accepted: false, ignored: true }]);
      expect(await eventRow(bench.sql, 'stripe', payload['id'] as string)).toBeUndefined();
      const lemon = await sendEvent(bench.url, 'lemonsqueezy', lemonEvent('affiliate_activated', { id: '1', type: 'affiliates', attributes: {} }));
      expect([lemon.status, lemon.body]).toEqual([200, { ok: true, accepted: false, ignored: true }]);
    });

    it('answers a duplicate delivery 200 duplicate and keeps one row', async () => {
      const payload = recognised.stripe();
      const body = Buffer.from(JSON.stringify(payload));
      const first = await postWebhook(bench.url, 'stripe', body, signatureHeaders('stripe', body));
      // A retry is signed anew (a later timestamp), like the provider's redelivery.
      const again = await postWebhook(bench.url, 'stripe', body, signatureHeaders('stripe', body, { secret: secrets.stripe[1], at: Math.floor(Date.now() / 1000) + 1 }));
      expect([first.status, again.status]).toEqual([202, 200]);
      expect(again.body).toEqual({ ok: true, accepted: true, duplicate: true });
      const { rows } = await bench.sql.query<{ count: string }>("SELECT count(*) AS count FROM license_billing_events WHERE provider = 'stripe' AND event_id = $1", [payload['id'] as string]);
      expect(Number(rows[0]?.count)).toBe(1);
    });

    it('caps the raw body at 64 KiB (413) and accepts exactly 64 KiB', async () => {
      const base = recognised.stripe();
      const fill = (size: number) => {
        const skeleton = Buffer.from(JSON.stringify({ ...base, padding: '' }));
        return Buffer.from(JSON.stringify({ ...base, padding: 'x'.repeat(size - skeleton.length) }));
      };
      const exact = fill(64 * 1024);
      expect(exact.length).toBe(64 * 1024);
      expect((await postWebhook(bench.url, 'stripe', exact, signatureHeaders('stripe', exact))).status).toBe(202);
      const over = fill(64 * 1024 + 1);
      const answer = await postWebhook(bench.url, 'stripe', over, signatureHeaders('stripe', over));
      expect(answer.status).toBe(413);
      expect(answer.body).toMatchObject({ ok: false, error: { code: 'payload_too_large' } });
    });

    it('answers a verified body that is no usable event 400 invalid_request, and a wrong content type 415', async () => {
      const junk = Buffer.from('[1,2,3]');
      const answer = await postWebhook(bench.url, 'stripe', junk, signatureHeaders('stripe', junk));
      expect([answer.status, answer.body.error.code]).toEqual([400, 'invalid_request']);
      const body = Buffer.from(JSON.stringify(recognised.stripe()));
      const wrongType = await postWebhook(bench.url, 'stripe', body, { ...signatureHeaders('stripe', body), 'content-type': 'text/plain' });
      expect([wrongType.status, wrongType.body.error.code]).toEqual([415, 'unsupported_media_type']);
    });
  });
}
