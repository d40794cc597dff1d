// Fuzz of every order-mode route through the started gateway on a real chain: seeded random path ids
// (real ones, foreign ones, near misses, encodings, very long ones), queries and bodies (bad JSON, wrong
// types, any JSON, huge and deep bodies, other content types, missing or wrong keys) never get a 5xx, and
// every refusal is the spec's JSON error envelope. A failure names its seed and case, so it replays.
import { seededRandom, type SeededRandom } from '@tollgate/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectWellFormed, sendRaw, type RawRequest } from '../helpers/fuzz';
import { call, type TestMerchant } from '../helpers/gateway';
import { fundedPayer, startPaymentStack, type PaymentStack } from '../helpers/payments';
import { createRefund, createdOrder, localMerchant, paidOrder, startOrderGateway, type OrderBody, type OrderGateway, type PaidOrder, type RefundBody } from './helpers';

const casesPerRoute = 2_000;
// Sent this many at a time: the cases are generated in order from the seed, so the run stays reproducible.
const inFlight = 8;
// Below Node's 16 KiB header limit (longer request lines are Node's 431, not this gateway's answer).
const maxUrlChars = 8_000;

let stack: PaymentStack;
let gateway: OrderGateway;
let merchant: TestMerchant;
let stranger: TestMerchant;
let paid: PaidOrder;
let unpaid: OrderBody;
let refund: RefundBody;
let cursor: string;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startOrderGateway(stack);
  merchant = await localMerchant(gateway);
  stranger = await localMerchant(gateway);
  // A large order, so that valid refund intents keep succeeding for a while.
  paid = await paidOrder(gateway, stack, merchant, await fundedPayer(stack, 10_000_000n), { amount: '5000000' });
  unpaid = await createdOrder(gateway, merchant, { amount: '42' });
  refund = (await createRefund(gateway, merchant, paid.order.orderId, { amount: '1' })).body;
  cursor = (await call<{ nextCursor: string }>(gateway.url, 'GET', '/order?limit=1', { apiKey: merchant.apiKey })).body.nextCursor;
  expect(cursor).toMatch(/\./);
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

type FuzzCase = RawRequest & { readonly method: 'GET' | 'POST' };

/**
 * Generates `casesPerRoute` cases from `seed`, sends them `inFlight` at a time, and checks every answer.
 *
 * @returns The statuses seen (so a test can check that the cases reached the handler, not only the gates).
 */
async function fuzz(seed: number, make: (g: ReturnType<typeof generators>, index: number) => FuzzCase): Promise<Set<number>> {
  const g = generators(seededRandom(seed));
  const cases = Array.from({ length: casesPerRoute }, (_, index) => make(g, index));
  const statuses = new Set<number>();
  for (let start = 0; start < cases.length; start += inFlight) {
    const batch = cases.slice(start, start + inFlight);
    const responses = await Promise.all(batch.map((request) => sendRaw(gateway.url, request)));
    responses.forEach((response, offset) => {
      const request = batch[offset] as FuzzCase;
      const label = `seed ${seed} case ${start + offset}: ${request.method} ${request.path.slice(0, 120)} ${request.body?.slice(0, 160) ?? ''}`;
      expectWellFormed(response, label);
      if (response.status < 400) expect(typeof response.body, label).toBe('object');
      statuses.add(response.status);
    });
  }
  return statuses;
}

/** The statuses a route's cases must have met: success, bad input, unknown or foreign ids, missing keys. */
function expectReached(statuses: Set<number>, expected: number[]): void {
  expect([...statuses].sort()).toEqual(expect.arrayContaining(expected));
}

function generators(random: SeededRandom) {
  const { pick, int } = random;
  const hex = (length: number) => Array.from({ length }, () => '0123456789abcdefABCDEF'[int(22)]).join('');
  const alphabet = ['a', 'Z', '0', '9', '-', '_', '.', '~', ' ', '%', '&', '=', '?', '#', '/', '\\', '"', "'", '<', '>', '{', '}', '\u0000', '\u0007', '\n', 'é', '日', '🦊', '\u202e', '\ufeff', '\ud800'];
  const text = (max: number) => Array.from({ length: int(max) }, () => pick(alphabet)).join('');
  // encodeURIComponent throws on a lone surrogate: send its (invalid) UTF-8 bytes as they would arrive.
  const encode = (value: string) => value.split(/([\ud800-\udfff])/).map((part) => (/^[\ud800-\udfff]$/.test(part) ? '%ED%A0%80' : encodeURIComponent(part))).join('');
  const flip = (value: string) => {
    if (value.length === 0) return value;
    const at = int(value.length);
    return `${value.slice(0, at)}${value[at] === 'A' ? 'B' : 'A'}${value.slice(at + 1)}`;
  };
  const apiKey = (): string | undefined => {
    const roll = int(12);
    if (roll === 0) return undefined;
    if (roll === 1) return stranger.apiKey;
    if (roll === 2) return pick([flip(merchant.apiKey), 'tg_live_', text(30).replace(/[^\x21-\x7e]/g, 'x') || 'x']);
    return merchant.apiKey;
  };
  const id = (prefix: 'ord' | 'rfd'): string => {
    const real = prefix === 'ord' ? pick([paid.order.orderId, unpaid.orderId]) : refund.refundId;
    const raw = pick([
      real,
      real,
      flip(real),
      real.toUpperCase(),
      `${prefix}_${hex(32).toLowerCase()}`,
      `${prefix}_${hex(int(40))}`,
      hex(32),
      `${real}x`,
      text(20),
      'x'.repeat(int(maxUrlChars - 200)),
      '..',
      '%2e%2e',
      '%ZZ',
      '%00',
      '%E0%A4%A',
      '%ED%A0%80',
      `${real}%2Fcancel`,
      '',
    ]);
    return raw.includes('%') || raw === '..' ? raw : encode(raw);
  };
  const numberish = () => pick(['-1', '0', '1', '1.5', '1e3', '0x10', '00', '9007199254740993', '1'.repeat(80), 'NaN', '', ' 1', '+1', '٣', String(2n ** 256n)]);
  const jsonValue = (depth: number): unknown => {
    switch (int(depth > 2 ? 6 : 9)) {
      case 0:
        return null;
      case 1:
        return random.next() < 0.5;
      case 2:
        return pick([0, -1, 1, 1.5, 1e308, -1e-308, Number.MAX_SAFE_INTEGER + 2, 2 ** 64, 2_592_001, 86_400]);
      case 3:
        return text(40);
      case 4:
        return 'x'.repeat(int(6_000));
      case 5:
        return pick([paid.signedReceipt, paid.order.payTo, '10000', '1', numberish(), 'USDC', 'local', 'https://hooks.example.com/x']);
      case 6:
        return Array.from({ length: int(4) }, () => jsonValue(depth + 1));
      default:
        return Object.fromEntries(
          Array.from({ length: int(5) }, () => [
            pick(['amount', 'reason', 'expiresInSecs', 'metadata', 'receipt', 'signedReceipt', 'payTo', 'network', '__proto__', 'constructor', text(8)]),
            jsonValue(depth + 1),
          ]),
        );
    }
  };
  /** A body: a valid one with a field replaced or removed, any JSON, broken JSON, huge or deep. */
  const body = (valid: Record<string, unknown>, limit: number): { body?: string; contentType?: string } => {
    const validText = JSON.stringify(valid);
    const keys = Object.keys(valid);
    switch (int(9)) {
      case 0:
        return { body: pick([validText.slice(0, int(validText.length)), `${validText}}`, "{'a':1}", '{"a":1,}', 'undefined', '\u0000', text(40), '']), contentType: 'application/json' };
      case 1:
      case 2:
        return { body: JSON.stringify({ ...valid, [pick([...keys, text(6)])]: jsonValue(0) }), contentType: 'application/json' };
      case 3:
        return { body: JSON.stringify(Object.fromEntries(Object.entries(valid).filter(() => int(2) === 0))), contentType: 'application/json' };
      case 4:
        return { body: JSON.stringify(jsonValue(0)) ?? 'null', contentType: 'application/json' };
      case 5:
        return { body: JSON.stringify({ ...valid, padding: 'x'.repeat(limit + int(100_000)) }), contentType: 'application/json' };
      case 6:
        return { body: validText, ...(int(3) === 0 ? {} : { contentType: pick(['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/cbor']) }) };
      case 7:
        return { body: `${'['.repeat(int(5_000))}${']'.repeat(int(5_000))}`, contentType: 'application/json' };
      default:
        return { body: validText, contentType: 'application/json' };
    }
  };
  return { pick, int, text, encode, flip, apiKey, id, numberish, jsonValue, body };
}

const orderBody = (g: ReturnType<typeof generators>) => ({
  payTo: merchant.payTo,
  network: 'local',
  amount: '10',
  // Few enough ids that some collide with an active order's (409 conflict).
  invoiceId: `F-${g.int(200)}`,
  label: 'Fuzz',
  description: 'Fuzzed order',
  expiresInSecs: 600,
  notifyUrl: 'https://hooks.example.com/orders',
  metadata: { a: 'b' },
});

describe(`fuzz: no 5xx, always the error envelope (${casesPerRoute} cases per route)`, { timeout: 600_000 }, () => {
  it('POST /order', async () => {
    const statuses = await fuzz(0x0d01, (g) => {
      const valid = orderBody(g);
      const metadataCase = g.int(4) === 0 ? { ...valid, metadata: g.jsonValue(0) } : valid;
      return { method: 'POST', path: g.int(10) === 0 ? '/order?x=1&x=2' : '/order', apiKey: g.apiKey(), ...g.body(metadataCase, 64 * 1024) } as FuzzCase;
    });
    expectReached(statuses, [201, 400, 401, 404, 409, 413, 415]);
  });

  it('GET /order', async () => {
    const keys = ['status', 'limit', 'cursor', 'status[]', 'limit[0]', 'pay_to', '', '日本'];
    const statuses = await fuzz(0x0d02, (g) => {
      const value = (key: string): string => {
        if (key.startsWith('status')) return g.pick(['unpaid', 'paid', 'partially_refunded', 'refunded', 'cancelled', 'expired', 'PAID', 'open', '', g.text(12)]);
        if (key.startsWith('limit')) return g.numberish();
        if (key === 'cursor') return g.pick([cursor, g.flip(cursor), cursor.split('.').reverse().join('.'), g.text(60), 'a'.repeat(g.int(3_000)), `${cursor}.${cursor}`]);
        return g.text(20);
      };
      const parts = Array.from({ length: g.int(4) }, () => {
        const key = g.pick(keys);
        return `${g.encode(key)}=${g.encode(value(key))}`;
      });
      if (g.int(5) === 0) parts.push(g.pick(['status', 'limit=', '=', '&&', '%zz=1', 'cursor=%E0%A4%A', 'status=paid&status=paid']));
      return { method: 'GET', path: `/order${parts.length === 0 ? '' : `?${parts.join('&')}`}`.slice(0, maxUrlChars), apiKey: g.apiKey() };
    });
    expectReached(statuses, [200, 400, 401]);
  });

  it('GET /order/:orderId', async () => {
    const statuses = await fuzz(0x0d03, (g) => ({ method: 'GET', path: `/order/${g.id('ord')}${g.pick(['', '', '/', '?a=1', '?a=1&a=2'])}`.slice(0, maxUrlChars), apiKey: g.apiKey() }));
    expectReached(statuses, [200, 400, 401, 404]);
  });

  it('POST /order/:orderId/cancel', async () => {
    const statuses = await fuzz(0x0d04, (g) => ({
      method: 'POST',
      path: `/order/${g.id('ord')}/cancel`.slice(0, maxUrlChars),
      apiKey: g.apiKey(),
      ...(g.int(3) === 0 ? g.body({ reason: 'x' }, 1_024) : {}),
    }));
    expectReached(statuses, [200, 401, 404, 409]);
  });

  it('POST /order/:orderId/refund', async () => {
    const statuses = await fuzz(0x0d05, (g) => ({
      method: 'POST',
      path: `/order/${g.id('ord')}/refund`.slice(0, maxUrlChars),
      apiKey: g.apiKey(),
      ...g.body({ amount: g.pick(['1', '2', '1000', '5000001']), reason: 'Fuzz refund', expiresInSecs: 3_600 }, 8 * 1024),
    }));
    expectReached(statuses, [201, 400, 401, 404, 409, 413, 415]);
  });

  it('GET /order/:orderId/refund/:refundId', async () => {
    const statuses = await fuzz(0x0d06, (g) => ({ method: 'GET', path: `/order/${g.id('ord')}/refund/${g.id('rfd')}`.slice(0, maxUrlChars), apiKey: g.apiKey() }));
    expectReached(statuses, [200, 401, 404]);
  });

  it('GET /order/:orderId/refunds', async () => {
    const statuses = await fuzz(0x0d07, (g) => ({ method: 'GET', path: `/order/${g.id('ord')}/refunds${g.pick(['', '?limit=1', '?x=%zz'])}`.slice(0, maxUrlChars), apiKey: g.apiKey() }));
    expectReached(statuses, [200, 400, 401, 404]);
  });

  it('POST /order/:orderId/refund/:refundId/reject', async () => {
    const statuses = await fuzz(0x0d08, (g) => ({
      method: 'POST',
      path: `/order/${g.id('ord')}/refund/${g.id('rfd')}/reject`.slice(0, maxUrlChars),
      apiKey: g.apiKey(),
      ...(g.int(4) === 0 ? {} : g.body({ reason: g.pick(['No', 'é'.repeat(256), 'a\nb']) }, 8 * 1024)),
    }));
    expectReached(statuses, [200, 400, 401, 404]);
  });

  it('POST /refund-receipt/rejected', async () => {
    const statuses = await fuzz(0x0d09, (g) => {
      const valid = { receipt: paid.receipt as unknown as Record<string, unknown>, signedReceipt: paid.signedReceipt, reason: 'Fuzz' };
      const receiptCase = g.int(3) === 0 ? { ...valid, receipt: { ...valid.receipt, [g.pick([...Object.keys(paid.receipt), 'extra'])]: g.jsonValue(0) } } : valid;
      return { method: 'POST', path: '/refund-receipt/rejected', apiKey: g.apiKey(), ...g.body(receiptCase, 16 * 1024) } as FuzzCase;
    });
    expectReached(statuses, [200, 400, 401, 404, 413, 415, 422]);
  });

  it('left the real order consistent: never refunded past its amount', async () => {
    const order = (await call<OrderBody>(gateway.url, 'GET', `/order/${paid.order.orderId}`, { apiKey: merchant.apiKey })).body;
    expect(BigInt(order.refundReserved) + BigInt(order.refunded) + BigInt(order.refundable)).toBe(5_000_000n);
    expect(BigInt(order.refundable)).toBeGreaterThanOrEqual(0n);
  });
});
