// POST /verify-receipt under GATEWAY_EVIDENCE_ACCESS=merchant, two merchants on one gateway: merchant B
// forges a Tollgate receipt whose `payTo` is its own (so it passes the visibility check) but that names
// merchant A's payment, by payment id or by authorization (payer and nonce: public chain facts). A's
// stored receipt must not judge B's receipt: B's 422 is the one a payment that does not exist gets, and
// carries none of A's stored values. A itself still gets its stored receipt as the judge.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, registerMerchant, type JsonResponse, type TestGateway, type TestMerchant } from '../helpers/gateway';
import { payableRef, startPaymentStack, type PaymentStack } from '../helpers/payments';
import { payForReceipt, startEvidenceGateway, type PaidReceipt } from './helpers';
import type { VerificationField } from '../helpers/verification';
import { TestWallClock } from '../helpers/clock';

interface Refusal {
  reason: string;
  receiptHash: string;
  signature: { valid: boolean; reason: string };
  context: { valid: boolean; content: string; fields: VerificationField[] };
}

const junkSignature = `0x${'00'.repeat(65)}`;
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

let stack: PaymentStack;
let gateway: TestGateway;
let paid: PaidReceipt;
let shopB: TestMerchant;
let refB: { refId: string; resource: string };

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startEvidenceGateway(stack, { GATEWAY_EVIDENCE_ACCESS: 'merchant' }, { clock: new TestWallClock() });
  paid = await payForReceipt(gateway, stack);
  shopB = await registerMerchant(gateway.url, { network: 'local' });
  refB = await payableRef(gateway, { merchant: shopB });
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

/** A receipt to B's payTo and ref, with A's public facts and what `names` sets (payment id, payer, nonce). */
function forged(names: { paymentId: string; payer: string; authorizationNonce: string }): Record<string, unknown> {
  const { blockNumber: _block, ...receipt } = paid.receipt;
  return { ...receipt, payTo: shopB.payTo, refId: refB.refId, resourceUrl: refB.resource, amount: '1', txHash: `0x${'11'.repeat(32)}`, ...names };
}

/** Ids that name no payment this gateway stored. */
function nothing(): { paymentId: string; payer: string; authorizationNonce: string } {
  const nonce = `0x${hex(32)}`;
  return { paymentId: `auth:31337:${paid.receipt.payer.toLowerCase()}:${nonce}`, payer: paid.receipt.payer, authorizationNonce: nonce };
}

function verifyAs(merchant: TestMerchant, receipt: unknown): Promise<JsonResponse> {
  return call(gateway.url, 'POST', '/verify-receipt', { apiKey: merchant.apiKey, json: { signedReceipt: junkSignature, receipt, minConfirmations: 1 } });
}

/** The parts of a refusal that do not depend on the ids the caller sent (the receipt hash is of the caller's own receipt). */
function comparable(response: JsonResponse): unknown {
  const body = response.body as { error: { code: string; message: string; details: Refusal } };
  const { receiptHash: _hash, ...details } = body.error.details;
  return { status: response.status, code: body.error.code, message: body.error.message, details };
}

describe('a forged receipt naming another merchant’s payment, under the merchant policy', () => {
  it('gets the answer of a payment that does not exist, with none of the other merchant’s stored values', async () => {
    const probes: Record<string, { paymentId: string; payer: string; authorizationNonce: string }> = {
      'A’s payment id': { ...nothing(), paymentId: paid.receipt.paymentId },
      'A’s authorization (payer and nonce)': { ...nothing(), authorizationNonce: paid.receipt.authorizationNonce },
      'both': { paymentId: paid.receipt.paymentId, payer: paid.receipt.payer, authorizationNonce: paid.receipt.authorizationNonce },
    };
    const control = await verifyAs(shopB, forged(nothing()));
    const controlDetails = expectError(control, 422, 'receipt_invalid') as unknown as Refusal;
    expect(controlDetails.context).toMatchObject({ valid: false, content: 'unverifiable' });

    const secrets = [paid.ref.refId, paid.ref.merchant.payTo, paid.txHash, paid.receipt.resourceUrl, paid.receipt.blockNumber ?? ''].filter((value) => value !== '').map((value) => value.toLowerCase());
    for (const [label, names] of Object.entries(probes)) {
      const probe = await verifyAs(shopB, forged(names));
      const details = expectError(probe, 422, 'receipt_invalid') as unknown as Refusal;
      expect(details.context.content, label).toBe('unverifiable');
      expect(details.context.fields.filter((entry) => entry.source === 'stored_receipt'), label).toEqual([]);
      expect(comparable(probe), label).toEqual(comparable(control));
      const text = probe.text.toLowerCase();
      for (const secret of secrets) expect(text, `${label}: ${secret}`).not.toContain(secret.replace(/^0x/, ''));
    }
  });

  it('still lets the owner’s stored receipt judge its own forged receipt', async () => {
    const probe = await verifyAs(paid.ref.merchant, { ...paid.receipt, amount: '1' });
    const details = expectError(probe, 422, 'receipt_invalid') as unknown as Refusal;
    expect(details.context).toMatchObject({ valid: false, content: 'differs_from_stored' });
    const differing = details.context.fields.filter((entry) => !entry.match);
    expect(differing.map((entry) => [entry.field, entry.source, entry.expected])).toEqual([['amount', 'stored_receipt', '10000']]);
  });
});
