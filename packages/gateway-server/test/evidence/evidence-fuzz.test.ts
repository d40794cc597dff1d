// Fuzz of the chain-evidence routes through the started gateway on a real chain: generated hashes,
// queries and bodies (bad JSON, huge bodies, wrong types, repeated and bracketed parameters, unicode,
// very long strings, negative and fractional numbers) never get a 5xx, and every refusal is the spec's
// JSON error envelope. Cases are seeded: a failure names its seed and case so it can be replayed.
import { seededRandom, type SeededRandom } from '@tollgate/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectWellFormed, sendRaw } from '../helpers/fuzz';
import { call, type TestGateway } from '../helpers/gateway';
import { startPaymentStack, type PaymentStack } from '../helpers/payments';
import { payForReceipt, startEvidenceGateway, type PaidReceipt } from './helpers';
import { TestWallClock } from '../helpers/clock';

const casesPerRoute = 300;
// Below Node's 16 KiB header limit: longer request lines are refused by Node's HTTP parser (431) before
// any route runs, which is not this gateway's answer to test.
const maxUrlChars = 8_000;

let stack: PaymentStack;
let gateway: TestGateway;
let paid: PaidReceipt;
let validCursor: string;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startEvidenceGateway(stack, { GATEWAY_MAX_BLOCK_SPAN: '3', GATEWAY_HISTORY_SCAN_BLOCKS: '6' }, { clock: new TestWallClock() });
  paid = await payForReceipt(gateway, stack);
  const page = await call<{ nextCursor?: string }>(gateway.url, 'GET', `/txs?pay_to=${paid.ref.merchant.payTo}&limit=1`);
  validCursor = page.body.nextCursor ?? '';
  expect(validCursor).not.toBe('');
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

const send = (method: string, path: string, init: { body?: string; contentType?: string } = {}) => sendRaw(gateway.url, { method, path, ...init });

function generators(random: SeededRandom) {
  const { pick, int } = random;
  const hex = (length: number) => Array.from({ length }, () => '0123456789abcdefABCDEF'[int(22)]).join('');
  const alphabet = ['a', 'Z', '0', '9', '-', '_', '.', '~', ' ', '%', '&', '=', '?', '#', '/', '\\', '"', "'", '<', '>', '[', ']', '{', '}', '\u0000', 'é', '日', '🦊', '\u202e', '\ufeff'];
  const text = (max: number) => Array.from({ length: int(max) }, () => pick(alphabet)).join('');
  const numberish = () => pick(['-1', '-0', '0', '1', '1.5', '1e3', '0x10', '00', '9007199254740993', '1'.repeat(40), 'NaN', 'Infinity', '', ' 1', '+1', '٣']);
  const address = () => pick([paid.ref.merchant.payTo, paid.receipt.payer, paid.ref.merchant.payTo.toLowerCase(), `0x${hex(40)}`, `0x${hex(39)}`, `0x${hex(41)}`, '0x', text(12)]);
  const flip = (value: string) => {
    if (value.length === 0) return value;
    const at = int(value.length);
    return `${value.slice(0, at)}${value[at] === 'A' ? 'B' : 'A'}${value.slice(at + 1)}`;
  };
  const hash = () =>
    pick([
      paid.txHash,
      `0x${hex(64)}`,
      `0x${hex(int(80))}`,
      hex(64),
      `0X${hex(64)}`,
      `0x${hex(63)}g`,
      text(30),
      'x'.repeat(int(maxUrlChars - 100)),
      `${paid.txHash}/extra`,
      '..',
      '%2e%2e',
      '%E0%A4%A',
      '%ZZ',
      '%00',
      '%ED%A0%80',
    ]);
  const jsonValue = (depth: number): unknown => {
    const kind = int(depth > 2 ? 6 : 9);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return random.next() < 0.5;
      case 2:
        return pick([0, -1, 1.5, 1e308, -1e-308, Number.MAX_SAFE_INTEGER + 2, 2 ** 64]);
      case 3:
        return text(40);
      case 4:
        return 'x'.repeat(int(5_000));
      case 5:
        return pick([paid.signedReceipt, paid.txHash, '10000']);
      case 6:
        return Array.from({ length: int(4) }, () => jsonValue(depth + 1));
      default:
        return Object.fromEntries(Array.from({ length: int(4) }, () => [pick(['receipt', 'signedReceipt', 'minConfirmations', 'expectedPayTo', 'expectedAmount', '__proto__', 'constructor', text(8)]), jsonValue(depth + 1)]));
    }
  };
  return { pick, int, text, numberish, address, flip, hash, jsonValue };
}

describe('fuzz: no 5xx, always the error envelope', () => {
  it(`GET /tx/:txHash (${casesPerRoute} cases)`, async () => {
    const seed = 0x7a11;
    const g = generators(seededRandom(seed));
    for (let index = 0; index < casesPerRoute; index++) {
      const raw = g.hash();
      const segment = raw.includes('%') || raw === '..' ? raw : encodeURIComponent(raw);
      const query = g.pick(['', '?network=local', '?network=local&network=base', '?network[]=local', `?network=${encodeURIComponent(g.text(20))}`, `?${encodeURIComponent(g.text(10))}=1`, '?network', `?network=${'n'.repeat(3_000)}`]);
      const path = `/tx/${segment}${query}`.slice(0, maxUrlChars);
      const response = await send('GET', path);
      expectWellFormed(response, `seed ${seed} case ${index}: GET ${path.slice(0, 120)}`);
      if (response.status === 200) expect(typeof (response.body as { found?: unknown }).found).toBe('boolean');
    }
  });

  it(`GET /txs (${casesPerRoute} cases)`, async () => {
    const seed = 0x7a12;
    const g = generators(seededRandom(seed));
    const keys = ['pay_to', 'from', 'cursor', 'asset', 'from_block', 'limit', 'network', 'pay_to[]', 'limit[0]', 'unknown', '日本', ''];
    const value = (key: string): string => {
      if (key.startsWith('pay_to') || key === 'from') return g.address();
      if (key === 'cursor') return g.pick([validCursor, g.flip(validCursor), validCursor.split('.').reverse().join('.'), g.text(60), 'a'.repeat(g.int(3_000)), `${validCursor}.${validCursor}`]);
      if (key === 'asset') return g.pick(['USDC', 'usdc', 'ETH', '', g.text(10)]);
      if (key === 'from_block' || key.startsWith('limit')) return g.numberish();
      return g.text(20);
    };
    for (let index = 0; index < casesPerRoute; index++) {
      const parts = Array.from({ length: 1 + g.int(5) }, () => {
        const key = g.pick(keys);
        return `${encodeURIComponent(key)}=${encodeURIComponent(value(key))}`;
      });
      if (g.int(4) === 0) parts.push(g.pick(['pay_to', 'limit=', '=', '&&', '%zz=1', 'cursor=%E0%A4%A']));
      const path = `/txs?${parts.join('&')}`.slice(0, maxUrlChars);
      const response = await send('GET', path);
      expectWellFormed(response, `seed ${seed} case ${index}: GET ${path.slice(0, 160)}`);
      if (response.status === 200) expect(Array.isArray((response.body as { items?: unknown }).items)).toBe(true);
    }
  });

  it(`POST /verify-receipt (${casesPerRoute} cases)`, async () => {
    const seed = 0x7a13;
    const g = generators(seededRandom(seed));
    const valid = { signedReceipt: paid.signedReceipt, receipt: paid.receipt, minConfirmations: 1 };
    const validText = JSON.stringify(valid);
    for (let index = 0; index < casesPerRoute; index++) {
      let body: string;
      let contentType: string | undefined = 'application/json';
      switch (g.int(7)) {
        case 0: // bad JSON: truncated, or with a stray byte
          body = g.pick([validText.slice(0, g.int(validText.length)), `${validText}}`, `{${validText}`, "{'a':1}", '{"a":1,}', 'undefined', '\u0000', g.text(50)]);
          break;
        case 1: // a valid body with one field replaced by anything
          body = JSON.stringify({ ...valid, [g.pick(['signedReceipt', 'receipt', 'minConfirmations', 'expectedPayTo', 'expectedAmount'])]: g.jsonValue(0) });
          break;
        case 2: // a receipt with one field replaced by anything
          body = JSON.stringify({ ...valid, receipt: { ...paid.receipt, [g.pick(Object.keys(paid.receipt))]: g.jsonValue(0) } });
          break;
        case 3: // any JSON at all
          body = JSON.stringify(g.jsonValue(0)) ?? 'null';
          break;
        case 4: // over the body limit
          body = JSON.stringify({ ...valid, padding: 'x'.repeat(16 * 1024 + g.int(200_000)) });
          break;
        case 5: // another content type, or none
          body = validText;
          contentType = g.pick([undefined, 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'application/cbor']);
          break;
        default: // deep nesting
          body = `${'['.repeat(g.int(5_000))}${']'.repeat(g.int(5_000))}`;
      }
      // A repeated query parameter is refused before the body is read.
      const path = g.int(8) === 0 ? '/verify-receipt?x=1&x=2' : '/verify-receipt';
      const response = await send('POST', path, { body, ...(contentType === undefined ? {} : { contentType }) });
      expectWellFormed(response, `seed ${seed} case ${index}: ${body.slice(0, 120)}`);
      if (body.length > 16 * 1024 + 20 && contentType === 'application/json' && path === '/verify-receipt') expect(response.status, `seed ${seed} case ${index}: ${response.text.slice(0, 300)} ${body.length}`).toBe(413);
    }
  });

  it('refuses a 2 MiB body with 413 and the envelope without reading it all', async () => {
    const response = await send('POST', '/verify-receipt', { body: `{"padding":"${'x'.repeat(2 * 1024 * 1024)}"}`, contentType: 'application/json' });
    expectWellFormed(response, '2 MiB body');
    expect(response.status).toBe(413);
  });
});
