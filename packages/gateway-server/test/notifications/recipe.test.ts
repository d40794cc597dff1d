import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { PaymentSettledNotification } from '@tollgate/core/x402';
import { buildNotificationRequest } from '@tollgate/core/gateway';

// The documentation's plain-Node verification recipe is run against what the gateway sends, so it
// cannot drift. It is read from the README once the section is merged there, else from docs/.
const marker = '// tollgate-notification-recipe';
const candidates = ['../../../../README.md', '../../../../docs/gateway-notifications.md'].map((path) => {
  try {
    return readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');
  } catch {
    return '';
  }
});
const doc = candidates.find((text) => text.includes(marker)) ?? '';
const block = new RegExp('```js\\n' + marker + '\\n([\\s\\S]*?)\\n```').exec(doc)?.[1] ?? '';

type Verify = (rawBody: Buffer, headers: Record<string, string | undefined>, keys: Record<string, string>, toleranceSeconds?: number) => string | null;

function loadRecipe(): Verify {
  // The recipe's only import is node:crypto; the same functions are passed in.
  const code = block.replace(/^import .*$/m, '');
  return new Function('createHmac', 'timingSafeEqual', 'Buffer', `${code}\nreturn verifyTollgateNotification;`)(createHmac, timingSafeEqual, Buffer) as Verify;
}

const notification = { event: 'payment.settled', id: 'ntf_recipe', createdAt: 1_772_366_400, data: { refId: 'ref_1', note: 'é ✓' } } as unknown as PaymentSettledNotification;
const current = { id: '9a0b1c2d3e4f5061', key: 'current-notify-hmac-key' };
const previous = { id: '0011223344556677', key: 'previous-notify-hmac-key' };

describe('the plain-Node verification recipe in the documentation', () => {
  it('is present', () => {
    expect(block).toContain('function verifyTollgateNotification');
  });

  it('accepts what the gateway sends, under either live key', () => {
    const verify = loadRecipe();
    const now = Math.floor(Date.now() / 1000);
    const { body, headers } = buildNotificationRequest({ notification, keys: [current, previous], timestamp: now });
    const raw = Buffer.from(body, 'utf8');
    expect(verify(raw, headers, { [current.id]: current.key })).toBe(current.id);
    expect(verify(raw, headers, { [previous.id]: previous.key })).toBe(previous.id);
  });

  it('refuses a tampered body, an unknown or wrong key, a stale timestamp and a mismatched Tollgate-Timestamp', () => {
    const verify = loadRecipe();
    const now = Math.floor(Date.now() / 1000);
    const { body, headers } = buildNotificationRequest({ notification, keys: [current], timestamp: now });
    const raw = Buffer.from(body, 'utf8');
    expect(verify(Buffer.from(body.replace('ref_1', 'ref_2')), headers, { [current.id]: current.key })).toBeNull();
    expect(verify(raw, headers, { [current.id]: 'another-key' })).toBeNull();
    expect(verify(raw, headers, { [previous.id]: previous.key })).toBeNull();
    expect(verify(raw, { ...headers, 'tollgate-timestamp': String(now + 1) }, { [current.id]: current.key })).toBeNull();
    expect(verify(raw, { ...headers, 'tollgate-signature': undefined }, { [current.id]: current.key })).toBeNull();
    const stale = buildNotificationRequest({ notification, keys: [current], timestamp: now - 301 });
    expect(verify(Buffer.from(stale.body), stale.headers, { [current.id]: current.key })).toBeNull();
  });
});
