// /receive and "twins": once a payment's authorization is executed, its authorization and signature are
// public calldata, so anyone can rebuild the PAYMENT-SIGNATURE payload with another unsigned field (their
// own payment-identifier). A twin of a SETTLED payment gets the stored answer byte for byte, without a
// settle and without a second row; a twin whose signed terms differ, or of a payment not settled yet, is
// still a conflict. Real HTTP, real database, real anvil chain and facilitator.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Hex, LocalAccount } from 'viem';
import { call, expectError, startTestGateway, type JsonResponse, type TestGateway } from '../helpers/gateway';
import { encodePayment, fundedPayer, payableRef, signPayment, startPaymentStack, tokenOf, transfersTo, type PayableRef, type PaymentStack } from '../helpers/payments';
import { answerBytes, requirementsOf } from '../helpers/recovery-app';
import { TestWallClock } from '../helpers/clock';

let stack: PaymentStack;
let gateway: TestGateway;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startTestGateway(stack.gatewayEnv, { clock: new TestWallClock() });
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});
beforeEach(() => stack.resetCounts());

type Payload = Record<string, unknown>;

const rowsOf = async (refId: string) =>
  (await gateway.server.database.sql.query<{ payment_id: string; state: string }>('SELECT payment_id, state FROM gateway_payments WHERE ref_id = $1', [refId])).rows;

/** A fresh ref and its payer's signed payload (no payment-identifier: its payment id is `auth:…`). */
async function genuine(): Promise<{ ref: PayableRef; payload: Payload; nonce: Hex; payer: LocalAccount }> {
  const payer = await fundedPayer(stack, 1_000_000n);
  const ref = await payableRef(gateway);
  const payload = await signPayment(tokenOf(stack), payer, await requirementsOf(gateway.url, ref.path));
  return { ref, payload, payer, nonce: (payload.payload as { authorization: { nonce: Hex } }).authorization.nonce };
}

/** What a stranger rebuilds from the calldata: the same signed payload under their own payment id. */
const twinOf = (payload: Payload, id: string): Payload => ({ ...payload, extensions: { 'payment-identifier': { info: { required: false, id } } } });

const receive = (ref: PayableRef, payload: Payload): Promise<JsonResponse> => call(gateway.url, 'GET', ref.path, { headers: { 'payment-signature': encodePayment(payload) } });

describe('/receive answers a twin of a settled payment with its stored answer', () => {
  it('gives a twin sent after the payer the identical 200 answer: no settle, no second row', async () => {
    const { ref, payload } = await genuine();
    const paid = await receive(ref, payload);
    expect(paid.status, paid.text).toBe(200);
    expect(stack.counts.settle).toBe(1);
    const rows = await rowsOf(ref.refId);
    expect(rows).toMatchObject([{ state: 'settled' }]);

    const twin = await receive(ref, twinOf(payload, 'stranger-chose-this-id-0101'));
    expect(twin.status, twin.text).toBe(200);
    expect(answerBytes(twin)).toEqual(answerBytes(paid));
    // Twice, and the payer's own replay too: the same bytes every time.
    expect(answerBytes(await receive(ref, twinOf(payload, 'stranger-chose-this-id-0102')))).toEqual(answerBytes(paid));
    expect(answerBytes(await receive(ref, payload))).toEqual(answerBytes(paid));
    expect(stack.counts.settle).toBe(1);
    expect(await rowsOf(ref.refId)).toEqual(rows);
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
  });

  it('gives the payer its receipt when a stranger’s twin was recorded (and settled) first', async () => {
    const { ref, payload } = await genuine();
    const stranger = await receive(ref, twinOf(payload, 'stranger-chose-this-id-0103'));
    expect(stranger.status, stranger.text).toBe(200);
    expect(await rowsOf(ref.refId)).toEqual([{ payment_id: 'stranger-chose-this-id-0103', state: 'settled' }]);
    stack.resetCounts();
    // Before the fix the payer's own payload met `409 conflict` (authorization_in_use) here.
    const own = await receive(ref, payload);
    expect(own.status, own.text).toBe(200);
    expect(answerBytes(own)).toEqual(answerBytes(stranger));
    expect(stack.counts.settle).toBe(0);
    expect(await rowsOf(ref.refId)).toHaveLength(1);
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
  });
});

describe('/receive still refuses what is not a twin of a settled payment', () => {
  it('refuses a payload of the same authorization whose signed value differs, or whose value was altered', async () => {
    const { ref, payload, nonce, payer } = await genuine();
    const paid = await receive(ref, payload);
    expect(paid.status, paid.text).toBe(200);
    const rows = await rowsOf(ref.refId);
    stack.resetCounts();
    const accepted = payload.accepted as Parameters<typeof signPayment>[2];
    const inner = payload.payload as { authorization: Record<string, string>; signature: Hex };
    // Altered after signing: the value no longer matches the signature, nor the ref's amount.
    const altered = twinOf({ ...payload, payload: { ...inner, authorization: { ...inner.authorization, value: '20000' } } }, 'stranger-chose-this-id-0104');
    expect(expectError(await receive(ref, altered), 409, 'conflict')).toMatchObject({ reason: 'authorization_in_use' });
    // Same payer, nonce and validity, a valid signature, but for another value: signed terms differ.
    const validity = { validAfter: BigInt(inner.authorization['validAfter']!), validBefore: BigInt(inner.authorization['validBefore']!) };
    const resigned = twinOf(await signPayment(tokenOf(stack), payer, { ...accepted, amount: '20000' }, { nonce, ...validity }), 'stranger-chose-this-id-0107');
    expect((resigned.payload as { authorization: Record<string, string> }).authorization).toMatchObject({ nonce, value: '20000', validBefore: inner.authorization['validBefore'] });
    expect(expectError(await receive(ref, resigned), 409, 'conflict')).toMatchObject({ reason: 'authorization_in_use' });
    // A forged signature over the genuine terms: not the executed authorization's.
    const forged = twinOf({ ...payload, payload: { ...inner, signature: `0x${'11'.repeat(64)}1b` } }, 'stranger-chose-this-id-0105');
    expectError(await receive(ref, forged), 409, 'conflict');
    expect(stack.counts.settle).toBe(0);
    expect(await rowsOf(ref.refId)).toEqual(rows);
    // The payer still gets its answer.
    expect(answerBytes(await receive(ref, payload))).toEqual(answerBytes(paid));
  });

  for (const state of ['pending', 'processing', 'failed'] as const) {
    it(`answers conflict to a twin of a payment that is ${state === 'processing' ? 'claimed' : state}, never settling`, async () => {
      const { ref, payload } = await genuine();
      const paid = await receive(ref, payload);
      expect(paid.status, paid.text).toBe(200);
      // Put the row back where a payment not settled yet stands (a live claim keeps its lease).
      // A failed payment keeps a stored answer: only the state tells it from a settled one here.
      const lease = state === 'processing' ? `lease_token = 'live', lease_until = $2` : 'lease_token = NULL, lease_until = NULL';
      const answer = state === 'failed' ? `answer_outcome = 'failed'` : 'answer_outcome = NULL, answer_header = NULL, answer_body = NULL, completed_at = NULL';
      await gateway.server.database.sql.query(
        `UPDATE gateway_payments SET state = '${state}', ${lease}, ${answer} WHERE ref_id = $1`,
        state === 'processing' ? [ref.refId, new Date(gateway.clock.now() + 600_000)] : [ref.refId],
      );
      stack.resetCounts();
      expectError(await receive(ref, twinOf(payload, 'stranger-chose-this-id-0106')), 409, 'conflict');
      expect(stack.counts.settle).toBe(0);
      expect(await rowsOf(ref.refId)).toMatchObject([{ state }]);
    });
  }
});
