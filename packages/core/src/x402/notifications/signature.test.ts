import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NotificationSignatureError, notificationHeaderNames, signNotification, verifyNotification, type VerifyNotificationParams } from '../index';

const NOW = 1_772_323_200;
const body = JSON.stringify({ event: 'payment.settled', id: 'evt_1', data: { amount: '10000', note: 'Grüße' } });
const current = { id: 'nk_2', key: 'nhk_current_secret_0123456789abcdef' };
const previous = { id: 'nk_1', key: 'nhk_previous_secret_0123456789abcdef' };

function refusal(params: VerifyNotificationParams): NotificationSignatureError {
  try {
    verifyNotification(params);
  } catch (error) {
    if (error instanceof NotificationSignatureError) return error;
    throw error;
  }
  throw new Error('expected a NotificationSignatureError');
}

describe('signNotification', () => {
  it('signs "<t>.<raw body>" with HMAC-SHA256 under each key, as the documented recipe says', () => {
    const headers = signNotification({ body, keys: [current, previous], timestamp: NOW });
    const mac = (key: string) => createHmac('sha256', Buffer.from(key, 'utf8')).update(`${NOW}.${body}`, 'utf8').digest('hex');
    expect(headers).toEqual({
      'tollgate-timestamp': String(NOW),
      'tollgate-signature': `t=${NOW},nk_2=${mac(current.key)},nk_1=${mac(previous.key)}`,
    });
    expect(notificationHeaderNames).toEqual({ timestamp: 'Tollgate-Timestamp', signature: 'Tollgate-Signature' });
  });

  it('signs raw bytes the same as the equal text', () => {
    expect(signNotification({ body: new TextEncoder().encode(body), keys: [current], timestamp: NOW })).toEqual(signNotification({ body, keys: [current], timestamp: NOW }));
  });

  it('refuses key ids that would break the header, no keys, and bad timestamps', () => {
    for (const id of ['t', '', 'a,b', 'a=b', 'a b', 'x'.repeat(65)]) expect(() => signNotification({ body, keys: [{ id, key: 'k' }], timestamp: NOW })).toThrow(TypeError);
    expect(() => signNotification({ body, keys: [], timestamp: NOW })).toThrow(TypeError);
    expect(() => signNotification({ body, keys: [current], timestamp: 1.5 })).toThrow(TypeError);
  });
});

describe('verifyNotification', () => {
  const signed = signNotification({ body, keys: [current, previous], timestamp: NOW });
  const params = (overrides: Partial<VerifyNotificationParams> = {}): VerifyNotificationParams => ({
    body,
    headers: signed,
    keys: { [current.id]: current.key },
    now: NOW,
    ...overrides,
  });

  it('accepts a genuine notification from Node-style, mixed-case or fetch headers', () => {
    expect(verifyNotification(params())).toEqual({ keyId: 'nk_2', timestamp: NOW });
    const mixedCase = { 'Tollgate-Signature': signed['tollgate-signature'], 'Tollgate-Timestamp': [signed['tollgate-timestamp'] as string] };
    expect(verifyNotification(params({ headers: mixedCase })).keyId).toBe('nk_2');
    expect(verifyNotification(params({ headers: new Headers(signed), body: new TextEncoder().encode(body) })).keyId).toBe('nk_2');
  });

  it('supports key rollover: a receiver holding either key verifies', () => {
    expect(verifyNotification(params({ keys: { [previous.id]: previous.key } })).keyId).toBe('nk_1');
    expect(verifyNotification(params({ keys: { [previous.id]: previous.key, [current.id]: current.key } })).keyId).toBeDefined();
  });

  it('refuses a tampered body', () => {
    expect(refusal(params({ body: body.replace('10000', '10001') })).reason).toBe('bad_signature');
    expect(refusal(params({ body: `${body} ` })).reason).toBe('bad_signature');
  });

  it('refuses a signature under a key id you hold but made with another secret', () => {
    expect(refusal(params({ keys: { [current.id]: 'nhk_wrong_secret' } })).reason).toBe('bad_signature');
  });

  it('refuses a signature made only with keys you do not hold', () => {
    const error = refusal(params({ keys: { nk_9: 'whatever' } }));
    expect([error.reason, error.code]).toEqual(['unknown_key', 'unauthorized']);
  });

  it('refuses stale and future timestamps beyond the tolerance, accepts the boundary', () => {
    expect(verifyNotification(params({ now: NOW + 300 })).timestamp).toBe(NOW);
    expect(verifyNotification(params({ now: NOW - 300 })).timestamp).toBe(NOW);
    expect(refusal(params({ now: NOW + 301 })).reason).toBe('stale_timestamp');
    expect(refusal(params({ now: NOW - 301 })).reason).toBe('stale_timestamp');
    expect(verifyNotification(params({ now: NOW + 3_600, toleranceSeconds: 3_600 })).keyId).toBe('nk_2');
  });

  it('refuses a replay with a fresh timestamp header but the old signature', () => {
    const replay = { ...signed, 'tollgate-timestamp': String(NOW + 1_000) };
    expect(refusal(params({ headers: replay, now: NOW + 1_000 })).reason).toBe('timestamp_mismatch');
    const rewritten = { 'tollgate-signature': signed['tollgate-signature']!.replace(`t=${NOW}`, `t=${NOW + 1_000}`) };
    expect(refusal(params({ headers: rewritten, now: NOW + 1_000 })).reason).toBe('bad_signature');
  });

  it('refuses missing and malformed signature headers', () => {
    expect(refusal(params({ headers: {} })).reason).toBe('missing_signature');
    expect(refusal(params({ headers: { 'tollgate-signature': ' ' } })).reason).toBe('missing_signature');
    const mac = signed['tollgate-signature']!.split(',')[1]!;
    for (const header of [mac, `t=${NOW}`, `t=${NOW},t=${NOW},${mac}`, `t=abc,${mac}`, `t=${NOW},nk_2=zz`, `t=${NOW},nk_2`, `t=${NOW},=${'a'.repeat(64)}`]) {
      const reason = refusal(params({ headers: { 'tollgate-signature': header } })).reason;
      expect([header, reason]).toEqual([header, header === `t=${NOW}` ? 'unknown_key' : 'malformed_signature']);
    }
  });
});
