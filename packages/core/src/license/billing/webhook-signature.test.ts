import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhookSignature, type WebhookProvider } from './webhook-signature';

const body = new TextEncoder().encode('{"id":"evt_1","type":"customer.subscription.updated"}');
const now = 1_760_000_000;
// Built with Node's own HMAC, exactly as each provider documents the signed string.
const hmacHex = (secret: string, signed: string | Uint8Array) => createHmac('sha256', secret).update(signed).digest('hex');
const withBody = (prefix: string) => Buffer.concat([Buffer.from(prefix), body]);

const stripeHeader = (secret: string, t = now) => `t=${t},v1=${hmacHex(secret, withBody(`${t}.`))}`;
const paddleHeader = (secret: string, ts = now) => `ts=${ts};h1=${hmacHex(secret, withBody(`${ts}:`))}`;
const check = (provider: WebhookProvider, header: Record<string, string>, secrets: string[], bytes = body, at = now) => verifyWebhookSignature(provider, header, bytes, secrets, at);

describe('verifyWebhookSignature', () => {
  it('accepts each provider signature built as documented', () => {
    expect(check('stripe', { 'stripe-signature': stripeHeader('whsec_test') }, ['whsec_test'])).toEqual({ ok: true });
    expect(check('paddle', { 'paddle-signature': paddleHeader('pdl_ntfset_test') }, ['pdl_ntfset_test'])).toEqual({ ok: true });
    expect(check('lemonsqueezy', { 'x-signature': hmacHex('lemon-secret', body) }, ['lemon-secret'])).toEqual({ ok: true });
  });

  it('accepts any configured secret and any of several v1/h1 values (rolling secrets)', () => {
    const t = now;
    const both = `t=${t},v1=${hmacHex('whsec_new', withBody(`${t}.`))},v1=${hmacHex('whsec_old', withBody(`${t}.`))}`;
    expect(check('stripe', { 'stripe-signature': both }, ['whsec_old'])).toEqual({ ok: true });
    expect(check('stripe', { 'stripe-signature': stripeHeader('whsec_new') }, ['whsec_old', 'whsec_new'])).toEqual({ ok: true });
    const paddleBoth = `ts=${t};h1=${hmacHex('a_secret', withBody(`${t}:`))};h1=${hmacHex('b_secret', withBody(`${t}:`))}`;
    expect(check('paddle', { 'paddle-signature': paddleBoth }, ['b_secret'])).toEqual({ ok: true });
    expect(check('stripe', { 'stripe-signature': stripeHeader('whsec_gone') }, ['whsec_old', 'whsec_new'])).toEqual({ ok: false, reason: 'no_match' });
  });

  it('refuses a body changed by one byte', () => {
    for (let index = 0; index < body.length; index += 7) {
      const changed = body.slice();
      changed[index] = (changed[index] as number) ^ 0x01;
      expect(check('stripe', { 'stripe-signature': stripeHeader('whsec_test') }, ['whsec_test'], changed)).toEqual({ ok: false, reason: 'no_match' });
      expect(check('paddle', { 'paddle-signature': paddleHeader('s3cret') }, ['s3cret'], changed)).toEqual({ ok: false, reason: 'no_match' });
      expect(check('lemonsqueezy', { 'x-signature': hmacHex('s3cret', body) }, ['s3cret'], changed)).toEqual({ ok: false, reason: 'no_match' });
    }
  });

  it('enforces ±5 minutes on Stripe and Paddle, both directions', () => {
    for (const skew of [-301, 301]) {
      expect(check('stripe', { 'stripe-signature': stripeHeader('whsec_test', now + skew) }, ['whsec_test'])).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
      expect(check('paddle', { 'paddle-signature': paddleHeader('s3cret', now + skew) }, ['s3cret'])).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    }
    for (const skew of [-300, 300]) {
      expect(check('stripe', { 'stripe-signature': stripeHeader('whsec_test', now + skew) }, ['whsec_test'])).toEqual({ ok: true });
      expect(check('paddle', { 'paddle-signature': paddleHeader('s3cret', now + skew) }, ['s3cret'])).toEqual({ ok: true });
    }
  });

  it('signs the timestamp as sent: a re-written timestamp does not verify', () => {
    const header = stripeHeader('whsec_test').replace(`t=${now}`, `t=0${now}`);
    expect(check('stripe', { 'stripe-signature': header }, ['whsec_test'])).toEqual({ ok: false, reason: 'no_match' });
  });

  it('ignores other schemes (no downgrade to v0) and refuses malformed headers', () => {
    const v0Only = `t=${now},v0=${hmacHex('whsec_test', withBody(`${now}.`))}`;
    expect(check('stripe', { 'stripe-signature': v0Only }, ['whsec_test'])).toEqual({ ok: false, reason: 'malformed_header' });
    expect(check('stripe', {}, ['whsec_test'])).toEqual({ ok: false, reason: 'missing_header' });
    for (const header of ['garbage', `t=${now}`, `t=abc,v1=${'0'.repeat(64)}`, `t=${now},t=${now},v1=${'0'.repeat(64)}`, 'x'.repeat(5000)]) {
      expect(check('stripe', { 'stripe-signature': header }, ['whsec_test'])).toEqual({ ok: false, reason: 'malformed_header' });
    }
    // Stripe's separator is not Paddle's: a Stripe-shaped header on the Paddle route is malformed.
    expect(check('paddle', { 'paddle-signature': stripeHeader('s3cret') }, ['s3cret']).ok).toBe(false);
    expect(check('lemonsqueezy', { 'x-signature': 'not-hex' }, ['s3cret'])).toEqual({ ok: false, reason: 'malformed_header' });
    expect(check('lemonsqueezy', { 'x-signature': Buffer.from(createHmac('sha256', 's3cret').update(body).digest()).toString('base64') }, ['s3cret'])).toEqual({ ok: false, reason: 'malformed_header' });
  });

  it('never matches without a secret', () => {
    expect(check('lemonsqueezy', { 'x-signature': hmacHex('', body) }, [])).toEqual({ ok: false, reason: 'no_match' });
  });
});
