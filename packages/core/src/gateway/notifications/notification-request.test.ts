import { describe, expect, it } from 'vitest';
import { verifyNotification } from '@tollgate/core';
import {
  serializeNotification,
  type PaymentSettledNotification,
} from '@tollgate/core/x402';
import {
  buildNotificationRequest,
  deriveNotifyHmacKey,
  liveNotifyKeys,
  notificationUserAgent,
  type CredentialRecord,
} from '@tollgate/core/gateway';

const notifyRoot = crypto.getRandomValues(new Uint8Array(32));
const now = 1_772_366_400;

// The deliverer sends whatever body the job holds; a minimal object is enough to check signing.
const notification = { event: 'payment.settled', id: 'ntf_42', createdAt: now - 5, data: { refId: 'ref_1', note: 'é ✓' } } as unknown as PaymentSettledNotification;

function credential(id: string, kind: CredentialRecord['kind'], status: CredentialRecord['status']): CredentialRecord {
  return { id, kind, status, createdAt: new Date(0), revokedAt: status === 'revoked' ? new Date(1) : null };
}

describe('buildNotificationRequest', () => {
  it('signs the serialised body with every key and names the notification in the idempotency header', () => {
    const keys = [
      { id: 'aaaa000011112222', key: 'current-notify-key' },
      { id: 'bbbb000011112222', key: 'previous-notify-key' },
    ];
    const { body, headers } = buildNotificationRequest({ notification, keys, timestamp: now });
    expect(body).toBe(serializeNotification(notification));
    expect(headers).toEqual({
      'content-type': 'application/json',
      'user-agent': notificationUserAgent,
      'idempotency-key': 'ntf_42',
      'tollgate-event': 'payment.settled',
      'tollgate-timestamp': String(now),
      'tollgate-signature': expect.stringMatching(/^t=1772366400,aaaa000011112222=[0-9a-f]{64},bbbb000011112222=[0-9a-f]{64}$/),
    });
    for (const key of keys) {
      expect(verifyNotification({ body, headers, keys: { [key.id]: key.key }, now }).keyId).toBe(key.id);
    }
  });

  it('keeps the body and changes only the signature when an attempt is made later', () => {
    const keys = [{ id: 'aaaa000011112222', key: 'k' }];
    const first = buildNotificationRequest({ notification, keys, timestamp: now });
    const later = buildNotificationRequest({ notification, keys, timestamp: now + 3_600 });
    expect(later.body).toBe(first.body);
    expect(later.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
    expect(later.headers['tollgate-signature']).not.toBe(first.headers['tollgate-signature']);
    expect(() => verifyNotification({ body: later.body, headers: later.headers, keys: { aaaa000011112222: 'k' }, now: now + 3_600 })).not.toThrow();
  });

  it('refuses to build an unsigned request', () => {
    expect(() => buildNotificationRequest({ notification, keys: [], timestamp: now })).toThrow(TypeError);
  });
});

describe('liveNotifyKeys', () => {
  it('derives the current key first, then the previous one, and skips API keys and revoked keys', () => {
    const merchant = {
      id: 'merchant-1',
      credentials: [
        credential('api0000000000001', 'api', 'current'),
        credential('prev000000000001', 'notify', 'previous'),
        credential('gone000000000001', 'notify', 'revoked'),
        credential('curr000000000001', 'notify', 'current'),
      ],
    };
    expect(liveNotifyKeys(merchant, notifyRoot)).toEqual([
      { id: 'curr000000000001', key: deriveNotifyHmacKey(notifyRoot, 'merchant-1', 'curr000000000001') },
      { id: 'prev000000000001', key: deriveNotifyHmacKey(notifyRoot, 'merchant-1', 'prev000000000001') },
    ]);
    expect(liveNotifyKeys({ id: 'merchant-1', credentials: [credential('api0000000000001', 'api', 'current')] }, notifyRoot)).toEqual([]);
  });
});
