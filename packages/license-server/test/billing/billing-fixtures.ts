/**
 * Billing webhook fixtures: each provider's signature built exactly as the provider documents it (with
 * Node's own HMAC, not the code under test), realistic event bodies, a poster, and waits for the queue.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { SqlClient } from '@tollgate/core';
import { freshKey, type AdminHarness } from '../admin/admin-harness';

/** Secrets the billing suites configure. */
export const secrets = {
  stripe: ['whsec_old_secret_value', 'whsec_new_secret_value'],
  paddle: ['pdl_ntfset_01secret'],
  lemonsqueezy: ['lemon-signing-secret'],
} as const;

/** Environment that configures every provider (Stripe with two secrets: a roll in progress). */
export const billingEnv: Record<string, string> = {
  BILLING_STRIPE_SECRETS: secrets.stripe.join(','),
  BILLING_PADDLE_SECRETS: secrets.paddle.join(','),
  BILLING_LEMONSQUEEZY_SECRETS: secrets.lemonsqueezy.join(','),
  BILLING_POLL_SECONDS: '1',
};

export type Provider = 'stripe' | 'paddle' | 'lemonsqueezy';

const hmacHex = (secret: string, signed: Buffer) => createHmac('sha256', secret).update(signed).digest('hex');
const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The signature headers of `body` as each provider sends them:
 * Stripe `Stripe-Signature: t=<t>,v1=hex(HMAC(secret, "<t>." + body))`;
 * Paddle `Paddle-Signature: ts=<ts>;h1=hex(HMAC(secret, "<ts>:" + body))`;
 * Lemon Squeezy `X-Signature: hex(HMAC(secret, body))`.
 */
export function signatureHeaders(provider: Provider, body: Buffer, options: { secret?: string; at?: number } = {}): Record<string, string> {
  const at = options.at ?? nowSeconds();
  const secret = options.secret ?? secrets[provider][0];
  if (provider === 'stripe') return { 'stripe-signature': `t=${at},v1=${hmacHex(secret, Buffer.concat([Buffer.from(`${at}.`), body]))}` };
  if (provider === 'paddle') return { 'paddle-signature': `ts=${at};h1=${hmacHex(secret, Buffer.concat([Buffer.from(`${at}:`), body]))}` };
  return { 'x-signature': hmacHex(secret, body), 'x-event-name': 'webhook' };
}

/** One webhook answer. */
export interface WebhookAnswer {
  readonly status: number;
  readonly headers: Headers;
  // Tests read the fields they expect.
  readonly body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** POSTs raw bytes to `/webhooks/<path>` with the given headers (JSON content type unless overridden). */
export async function postWebhook(url: string, path: string, body: Buffer, headers: Record<string, string> = {}): Promise<WebhookAnswer> {
  const response = await fetch(new URL(`/webhooks/${path}`, url), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: new Uint8Array(body) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: the test sees the text.
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** Signs `payload` (serialised once, here) as `provider` and posts it. */
export async function sendEvent(url: string, provider: Provider, payload: unknown, options: { secret?: string; at?: number } = {}): Promise<WebhookAnswer> {
  const body = Buffer.from(JSON.stringify(payload));
  return postWebhook(url, provider, body, signatureHeaders(provider, body, options));
}

/** A fresh provider-style id. */
export const freshId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;

/** A Stripe event with the given `data.object` (created at `created` seconds, now by default). */
export function stripeEvent(type: string, object: Record<string, unknown>, created = nowSeconds()): Record<string, unknown> {
  return { id: freshId('evt'), object: 'event', api_version: '2025-03-31.basil', type, created, livemode: false, data: { object } };
}

/** A Stripe subscription object. */
export function stripeSubscription(id: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, object: 'subscription', status: 'active', customer: 'cus_1', cancel_at_period_end: false, current_period_end: nowSeconds() + 30 * 86_400, metadata: {}, ...fields };
}

/** A Paddle Billing notification. */
export function paddleEvent(type: string, data: Record<string, unknown>, occurredAt = new Date()): Record<string, unknown> {
  return { event_id: freshId('evt'), event_type: type, occurred_at: occurredAt.toISOString(), notification_id: freshId('ntf'), data };
}

/** A Lemon Squeezy webhook body. */
export function lemonEvent(name: string, data: Record<string, unknown>, customData: Record<string, unknown> = {}): Record<string, unknown> {
  return { meta: { event_name: name, custom_data: customData, webhook_id: freshId('wh') }, data };
}

/**
 * The dedupe key the server stores an event under: Stripe `id`, Paddle `event_id`, Lemon Squeezy
 * `lsq:` + SHA-256 of `[event_name, data.type, data.id, data.attributes.updated_at]` as JSON (or
 * `sha256:` + the body's digest without them), computed here independently of the server.
 */
export function billingEventId(provider: Provider, payload: Record<string, unknown>): string {
  if (provider === 'stripe') return payload['id'] as string;
  if (provider === 'paddle') return payload['event_id'] as string;
  const meta = (payload['meta'] ?? {}) as Record<string, unknown>;
  const data = (payload['data'] ?? {}) as Record<string, unknown>;
  const updatedAt = ((data['attributes'] ?? {}) as Record<string, unknown>)['updated_at'];
  const parts = [meta['event_name'], data['type'], data['id'], updatedAt];
  const digest = (text: string) => createHash('sha256').update(text).digest('hex');
  if (parts.every((part) => typeof part === 'string' || typeof part === 'number')) return `lsq:${digest(JSON.stringify(parts.map(String)))}`;
  return `sha256:${digest(JSON.stringify(payload))}`;
}

/** What `POST /v1/admin/billing/checkout-tokens` binds. */
export interface CheckoutTokenRequest {
  license_id?: string;
  policy_id?: string;
  account_id?: string;
  provider?: Provider;
  price_id?: string;
  ttl_seconds?: number;
}

/** Has the server sign a checkout token (vendor A's token unless given) and returns it. */
export async function checkoutToken(admin: AdminHarness, request: CheckoutTokenRequest, token?: string): Promise<string> {
  const answer = await admin.call('POST', '/billing/checkout-tokens', { body: request, key: freshKey(), ...(token === undefined ? {} : { token }) });
  if (answer.status !== 201) throw new Error(`checkout token refused: ${answer.status} ${answer.text}`);
  return answer.body.checkout_token.token as string;
}

/** The stored row of an event. */
export async function eventRow(sql: SqlClient, provider: Provider, eventId: string) {
  const { rows } = await sql.query<{ status: string; outcome: string | null; license_id: string | null; attempts: number }>(
    'SELECT status, outcome, license_id, attempts FROM license_billing_events WHERE provider = $1 AND event_id = $2',
    [provider, eventId],
  );
  return rows[0];
}

/** Waits until the event's row is processed (the server's job applies it) and returns the row. */
export async function processed(sql: SqlClient, provider: Provider, eventId: string) {
  for (let round = 0; round < 300; round += 1) {
    const row = await eventRow(sql, provider, eventId);
    if (row?.status === 'processed' || row?.status === 'dead') return row;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`event ${provider}/${eventId} was not processed`);
}

/** The license's expiry and status straight from the table. */
export async function licenseRow(sql: SqlClient, licenseId: string) {
  const { rows } = await sql.query<{ status: string; expires_at: Date | null; revocation_reason: number | null; account_id: string | null; policy_id: string }>(
    'SELECT status, expires_at, revocation_reason, account_id, policy_id FROM license_licenses WHERE license_id = $1',
    [licenseId],
  );
  return rows[0];
}
