// POST /verify-refund-receipt under GATEWAY_EVIDENCE_ACCESS=merchant, two merchants on one gateway:
// merchant B forges a refund receipt whose `from` is its own payTo (so it passes the visibility check)
// but whose paymentId and/or refId name merchant A's refund payment (both are public chain facts). The
// stored receipt and the refund intent are A's, so they must not judge B's receipt: B's 422 is the one
// a payment that does not exist gets, and carries none of A's stored values. A itself, sending the same
// kind of forgery about its own refund, still gets its stored receipt and intent as the judge.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, registerMerchant, type JsonResponse, type TestGateway, type TestMerchant } from '../helpers/gateway';
import { startPaymentStack, type PaymentStack } from '../helpers/payments';
import { createRefund, paidOrder, payRefund, refundReceiptOf, startOrderGateway, type PaidOrder, type RefundBody } from './helpers';
import type { VerificationField } from '../helpers/verification';

interface Refusal {
  reason: string;
  receiptHash: string;
  signature: { valid: boolean; reason: string };
  context: { valid: boolean; content: string; binding: string; fields: VerificationField[] };
}

const junkSignature = `0x${'00'.repeat(65)}`;
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

let stack: PaymentStack;
let gateway: TestGateway;
let paid: PaidOrder;
let refund: RefundBody;
let stored: Record<string, unknown> & { type: string; txHash: string; amount: string };
let shopB: TestMerchant;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startOrderGateway(stack, { GATEWAY_EVIDENCE_ACCESS: 'merchant' });
  paid = await paidOrder(gateway, stack, { amount: '8000' });
  refund = await createRefund(gateway, paid, { amount: '3000' });
  const answer = await payRefund(gateway, stack, refund, paid.merchant);
  expect(answer.status, answer.text).toBe(200);
  stored = refundReceiptOf(answer).receipt;
  shopB = await registerMerchant(gateway.url, { network: 'local' });
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

/** A refund receipt "from" `from` with A's public facts, B's own guesses elsewhere, and what `names` sets. */
function forged(from: string, names: { paymentId: string; refId: string; authorizationNonce: string }): Record<string, unknown> {
  return { ...stored, from, to: from, amount: '1', txHash: `0x${'11'.repeat(32)}`, orderId: `ord_${'0'.repeat(32)}`, refundId: `rfd_${'0'.repeat(32)}`, ...names };
}

/** Ids that name nothing this gateway stored (B's own payTo as the authorizer). */
function nothing(): { paymentId: string; refId: string; authorizationNonce: string } {
  const nonce = `0x${hex(32)}`;
  return { paymentId: `auth:31337:${shopB.payTo.toLowerCase()}:${nonce}`, refId: hex(16), authorizationNonce: nonce };
}

function verifyAs(merchant: TestMerchant, receipt: unknown): Promise<JsonResponse> {
  return call(gateway.url, 'POST', '/verify-refund-receipt', { apiKey: merchant.apiKey, json: { signedReceipt: junkSignature, receipt, minConfirmations: 1 } });
}

/** The parts of a refusal that do not depend on the ids the caller sent (the receipt hash is of the caller's own receipt). */
function comparable(response: JsonResponse): unknown {
  const body = response.body as { error: { code: string; message: string; details: Refusal } };
  const { receiptHash: _hash, ...details } = body.error.details;
  return { status: response.status, code: body.error.code, message: body.error.message, details };
}

describe('a forged refund receipt naming another merchant’s refund, under the merchant policy', () => {
  it('gets the answer of a payment that does not exist, with none of the other merchant’s stored values', async () => {
    const aPayment = { paymentId: String(stored['paymentId']), authorizationNonce: String(stored['authorizationNonce']) };
    const probes: Record<string, { paymentId: string; refId: string; authorizationNonce: string }> = {
      'A’s refund payment id and refund ref': { ...aPayment, refId: refund.refId },
      'A’s refund payment id only': { ...nothing(), ...aPayment },
      'A’s refund ref only': { ...nothing(), refId: refund.refId },
      'A’s original (order) payment id': { ...nothing(), paymentId: paid.order.payment!.paymentId },
    };
    const control = await verifyAs(shopB, forged(shopB.payTo, nothing()));
    const controlDetails = expectError(control, 422, 'receipt_invalid') as unknown as Refusal;
    expect(controlDetails.context).toMatchObject({ valid: false, content: 'unverifiable', binding: 'signed_only' });

    const secrets = [refund.refundId, paid.order.orderId, stored.txHash, paid.payer.address, paid.receipt.txHash, String(stored['blockNumber'])].map((value) => value.toLowerCase());
    for (const [label, names] of Object.entries(probes)) {
      const probe = await verifyAs(shopB, forged(shopB.payTo, names));
      const details = expectError(probe, 422, 'receipt_invalid') as unknown as Refusal;
      expect(details.context, label).toMatchObject({ content: 'unverifiable', binding: 'signed_only' });
      expect(details.context.fields.filter((entry) => entry.source === 'stored_receipt' || entry.source === 'refund_intent'), label).toEqual([]);
      expect(comparable(probe), label).toEqual(comparable(control));
      const text = probe.text.toLowerCase();
      for (const secret of secrets) expect(text, `${label}: ${secret}`).not.toContain(secret.replace(/^0x/, ''));
    }
  });

  it('still lets the owner’s stored receipt and refund intent judge its own forged receipt', async () => {
    const probe = await verifyAs(paid.merchant, { ...stored, amount: '1' });
    const details = expectError(probe, 422, 'receipt_invalid') as unknown as Refusal;
    expect(details.context).toMatchObject({ valid: false, content: 'differs_from_stored', binding: 'refund_intent' });
    const differing = details.context.fields.filter((entry) => !entry.match);
    expect(differing.map((entry) => [entry.field, entry.source, entry.expected])).toEqual([
      ['amount', 'stored_receipt', '3000'],
      ['amount', 'refund_intent', '3000'],
    ]);
  });
});
