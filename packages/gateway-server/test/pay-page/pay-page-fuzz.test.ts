// Seeded fuzz of the wallet page's routes: GET /pay/:refId with ref ids mutated from a real one (and
// junk), odd query strings and percent-encodings, and GET /pay/assets/:file with made-up names. Every
// answer is below 500 and one of the page's statuses: in HTML on the page's route (it is for browsers),
// the JSON error envelope elsewhere, never a stack trace. A failing case names its seed and index so it replays.
import { generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom, type SeededRandom } from '@tollgate/core/testing';
import { startTestGateway, type TestGateway } from '../helpers/gateway';
import { sendRaw } from '../helpers/fuzz';
import { payableRef, startPaymentStack, type PaymentStack } from '../helpers/payments';
import { TestWallClock } from '../helpers/clock';

let stack: PaymentStack;
let gateway: TestGateway;
let refId: string;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startTestGateway({ ...stack.gatewayEnv, GATEWAY_SIGNING_KEY: generatePrivateKey() }, { clock: new TestWallClock() });
  refId = (await payableRef(gateway)).refId;
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

const junk = ['%', '%zz', '%00', '%2F', '..', '/', '\u202e', 'é', '😀', '<script>', '"', "'", ' ', '+', '?', '#', '&amount=1', ';'];

/** A ref id near the real one: a character replaced, dropped or added, case flipped, junk spliced in. */
function mutatedId(random: SeededRandom, id: string): string {
  const chars = [...id];
  for (let edits = 1 + random.int(3); edits > 0; edits--) {
    const at = random.int(chars.length + 1);
    const edit = random.int(5);
    if (edit === 0) chars.splice(at, 1);
    else if (edit === 1) chars.splice(at, 0, random.pick([...'0123456789abcdefABCDEFxyz']));
    else if (edit === 2) chars[at] = (chars[at] ?? 'a').toUpperCase();
    else if (edit === 3) chars.splice(at, 0, encodeURIComponent(random.pick(junk)));
    else chars.splice(at, 0, random.pick(junk));
  }
  return chars.join('');
}

function pagePath(random: SeededRandom): string {
  const id = random.int(4) === 0 ? refId : random.int(6) === 0 ? '' : mutatedId(random, refId);
  const query = random.pick(['', '', '?amount=1', '?amount=-1', '?ref=x&ref=y', `?${encodeURIComponent(random.pick(junk))}`, '?a=%zz']);
  return `/pay/${id}${random.pick(['', '', '/'])}${query}`;
}

function assetPath(random: SeededRandom): string {
  const name = `pay-${[...Array(random.int(20))].map(() => random.pick([...'0123456789abcdefg'])).join('')}`;
  return `/pay/assets/${name}${random.pick(['.js', '.css', '.map', '', '.JS', '%2Ejs'])}${random.pick(['', '?v=1'])}`;
}

describe('GET /pay fuzz', () => {
  it('answers 2,000 seeded page and asset requests below 500, pages in HTML', async () => {
    const seed = 0x9a9e;
    const random = seededRandom(seed);
    const seen = new Set<number>();
    for (let index = 0; index < 2_000; index++) {
      const path = random.int(4) === 0 ? assetPath(random) : pagePath(random);
      const method = random.pick(['GET', 'GET', 'GET', 'HEAD']);
      const response = await sendRaw(gateway.url, { method, path });
      const label = `seed ${seed} case ${index}: ${method} ${path}`;
      expect(response.status, `${label} → ${response.status} ${response.text.slice(0, 200)}`).toBeLessThan(500);
      expect([200, 400, 404, 405, 410, 429], label).toContain(response.status);
      // The page's own route (one non-empty segment) answers in HTML; other paths get the JSON 404 of
      // every unknown route.
      const { pathname } = new URL(path, 'http://gateway.test'); // as fetch sends it: no fragment
      const pageRoute = /^\/pay\/[^/]+$/.test(pathname);
      const type = response.headers.get('content-type') ?? '';
      if (pageRoute && response.status !== 400) expect(type, label).toMatch(/^text\/html/);
      if (!pageRoute && response.status >= 400) expect(type, label).toBe('application/json; charset=utf-8');
      seen.add(response.status);
    }
    // The generator reaches the page itself and its refusals, not only one gate.
    expect([...seen].sort()).toEqual(expect.arrayContaining([200, 404]));
  });
});
