// Fuzz of POST /verify-refund-receipt through the started gateway on a real chain: 2,400 seeded bodies
// (bad JSON, wrong types, a refund, rejected or original receipt with one field replaced by anything,
// receipts of the wrong kind, huge and deeply nested bodies, other content types) never get a 5xx, and
// every refusal is the spec's JSON error envelope. A failure names its seed and case so it can be replayed.
import { seededRandom } from '@tollgate/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectWellFormed, sendRaw } from '../helpers/fuzz';
import { call, type TestGateway } from '../helpers/gateway';
import { startPaymentStack, type PaymentStack } from '../helpers/payments';
import { createRefund, paidOrder, payRefund, refundReceiptOf, startOrderGateway, type PaidOrder } from './helpers';

const cases = 2_400;
const seed = 0x7ef0;

let stack: PaymentStack;
let gateway: TestGateway;
let paid: PaidOrder;
let refunded: { receipt: Record<string, unknown>; signedReceipt: string };
let rejected: { receipt: Record<string, unknown>; signedReceipt: string };

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startOrderGateway(stack);
  paid = await paidOrder(gateway, stack, { amount: '10000' });
  const refund = await createRefund(gateway, paid, { amount: '3000' });
  const response = await payRefund(gateway, stack, refund, paid.merchant);
  expect(response.status, response.text).toBe(200);
  refunded = refundReceiptOf(response);
  const signed = await call<{ receipt: Record<string, unknown>; signedReceipt: string }>(gateway.url, 'POST', '/refund-receipt/rejected', {
    apiKey: paid.merchant.apiKey,
    json: { receipt: paid.receipt, signedReceipt: paid.signedReceipt },
  });
  expect(signed.status, signed.text).toBe(200);
  rejected = signed.body;
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

describe('fuzz: POST /verify-refund-receipt', () => {
  it(`never answers 5xx, and every refusal is the error envelope (${cases} seeded bodies)`, async () => {
    const random = seededRandom(seed);
    const { pick, int } = random;
    const alphabet = ['a', 'Z', '0', 'x', '-', ':', ' ', '"', '\\', '{', '}', '\u0000', 'é', '日', '🦊', '\u202e', '\ufeff'];
    const text = (max: number) => Array.from({ length: int(max) }, () => pick(alphabet)).join('');
    const hex = (length: number) => Array.from({ length }, () => '0123456789abcdefABCDEF'[int(22)]).join('');
    const jsonValue = (depth: number): unknown => {
      switch (int(depth > 2 ? 7 : 10)) {
        case 0:
          return null;
        case 1:
          return random.next() < 0.5;
        case 2:
          return pick([0, -1, 1.5, 1e308, -0, Number.MAX_SAFE_INTEGER + 2, 2 ** 64]);
        case 3:
          return text(40);
        case 4:
          return 'x'.repeat(int(3_000));
        case 5:
          return pick([refunded.signedReceipt, `0x${hex(64)}`, `0x${hex(40)}`, `sha256:${hex(64).toLowerCase()}`, `sha256:${hex(63)}`, '2500', '-1', '01', 'x402.refund.receipt', 'x402.refund.rejected']);
        case 6:
          return pick([refunded.receipt, rejected.receipt, paid.receipt]);
        case 7:
          return Array.from({ length: int(4) }, () => jsonValue(depth + 1));
        default:
          return Object.fromEntries(
            Array.from({ length: int(4) }, () => [pick(['receipt', 'signedReceipt', 'originalReceipt', 'minConfirmations', 'type', 'refundOf', '__proto__', 'constructor', text(8)]), jsonValue(depth + 1)]),
          );
      }
    };
    const mutate = (receipt: Record<string, unknown>) => {
      const copy: Record<string, unknown> = { ...receipt };
      const keys = Object.keys(copy);
      switch (int(3)) {
        case 0:
          copy[pick(keys)] = jsonValue(0);
          break;
        case 1:
          delete copy[pick(keys)];
          break;
        default:
          copy[text(6)] = jsonValue(1);
      }
      return copy;
    };
    const bases = [
      { signedReceipt: refunded.signedReceipt, receipt: refunded.receipt, minConfirmations: 1 },
      { signedReceipt: refunded.signedReceipt, receipt: refunded.receipt, originalReceipt: paid.receipt, minConfirmations: 1 },
      { signedReceipt: rejected.signedReceipt, receipt: rejected.receipt, originalReceipt: paid.receipt, minConfirmations: 0 },
    ];
    const statuses = new Map<number, number>();
    for (let index = 0; index < cases; index++) {
      const valid: Record<string, unknown> = pick(bases);
      const validText = JSON.stringify(valid);
      let body: string;
      let contentType: string | undefined = 'application/json';
      switch (int(9)) {
        case 0:
          body = pick([validText.slice(0, int(validText.length)), `${validText}}`, `{${validText}`, "{'a':1}", '{"a":1,}', 'undefined', '\u0000', text(50)]);
          break;
        case 1:
          body = JSON.stringify({ ...valid, [pick(['signedReceipt', 'receipt', 'originalReceipt', 'minConfirmations', 'expectedPayTo', text(6)])]: jsonValue(0) });
          break;
        case 2:
          body = JSON.stringify({ ...valid, receipt: mutate(valid['receipt'] as Record<string, unknown>) });
          break;
        case 3:
          body = JSON.stringify({ ...valid, originalReceipt: mutate(paid.receipt as unknown as Record<string, unknown>) });
          break;
        case 4:
          // Receipts in the wrong places: a payment receipt as the refund, a refund as the original.
          body = JSON.stringify({ ...valid, receipt: pick([paid.receipt, rejected.receipt, refunded.receipt]), originalReceipt: pick([paid.receipt, refunded.receipt, rejected.receipt, undefined]) });
          break;
        case 5:
          body = JSON.stringify(jsonValue(0)) ?? 'null';
          break;
        case 6:
          body = JSON.stringify({ ...valid, padding: 'x'.repeat(16 * 1024 + int(100_000)) });
          break;
        case 7:
          body = validText;
          contentType = pick([undefined, 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']);
          break;
        default:
          body = `${'['.repeat(int(5_000))}${']'.repeat(int(5_000))}`;
      }
      const path = int(10) === 0 ? '/verify-refund-receipt?x=1&x=2' : '/verify-refund-receipt';
      // Some bodies are not JSON at all.
      const response = await sendRaw(gateway.url, { method: 'POST', path, body, ...(contentType === undefined ? {} : { contentType }) });
      const label = `seed ${seed} case ${index}: ${body.slice(0, 160)}`;
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      expectWellFormed(response, label);
      if (response.status < 400) {
        expect(response.status, label).toBe(200);
        expect((response.body as { signature?: { valid?: unknown } }).signature?.valid, label).toBe(true);
      }
    }
    // The generator reached the verifier's every answer: valid receipts, refusals of receipts, and of bodies.
    expect([...statuses.keys()].sort()).toEqual(expect.arrayContaining([200, 400, 413, 422]));
  });
});
