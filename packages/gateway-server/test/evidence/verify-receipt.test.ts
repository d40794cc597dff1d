// POST /verify-receipt on a real anvil chain: receipts of real payments (both forms this gateway issues)
// verify; every tampered field, signature or expectation is `receipt_invalid` with evidence naming it;
// confirmations grow as blocks are mined and minConfirmations decides "confirmed".
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, type TestGateway } from '../helpers/gateway';
import { startPaymentStack, type PaymentStack } from '../helpers/payments';
import { mismatched, type VerificationField } from '../helpers/verification';
import { mine, payForReceipt, startEvidenceGateway, type PaidReceipt } from './helpers';
import { TestWallClock } from '../helpers/clock';

const signingKey = generatePrivateKey();
const receiptSigner = privateKeyToAccount(signingKey).address;

let stack: PaymentStack;
let gateway: TestGateway;
let paid: PaidReceipt;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startEvidenceGateway(stack, { GATEWAY_SIGNING_KEY: signingKey }, { clock: new TestWallClock() });
  paid = await payForReceipt(gateway, stack);
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});

interface Verification {
  verified: boolean;
  kind: string;
  receiptHash?: string;
  signature: { valid: boolean; signer: string | null; role: string | null; reason: string };
  context: { valid: boolean; content: string; fields: VerificationField[] };
  chain: { status: string; confirmed: boolean; confirmations: number; minConfirmations: number; blockNumber: string | null; network: string; txHash: string; transfer: Record<string, unknown> | null; fields: VerificationField[] };
}

const verify = (body: Record<string, unknown>) => call<Verification>(gateway.url, 'POST', '/verify-receipt', { json: body });

describe('POST /verify-receipt with receipts of real payments', () => {
  it('verifies the Tollgate receipt: signature, context and chain reported separately', async () => {
    const response = await verify({ signedReceipt: paid.signedReceipt, receipt: paid.receipt, expectedPayTo: paid.ref.merchant.payTo, expectedAmount: '10000', minConfirmations: 1 });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = response.body;
    expect(body).toMatchObject({
      verified: true,
      kind: 'tollgate',
      receiptHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      signature: { valid: true, signer: receiptSigner, role: 'current', reason: 'accepted' },
      context: { valid: true, content: 'signed' },
      chain: { status: 'confirmed', confirmed: true, network: 'local', txHash: paid.txHash, minConfirmations: 1, blockNumber: paid.receipt.blockNumber ?? expect.any(String) },
    });
    expect(body.chain.confirmations).toBeGreaterThanOrEqual(1);
    expect(body.chain.transfer).toEqual({ token: stack.setup.usdc.address, from: paid.receipt.payer, to: paid.ref.merchant.payTo, value: '10000', logIndex: expect.any(Number) });
    expect(body.context.fields.map((entry) => [entry.field, entry.source, entry.match])).toEqual([
      ['network', 'network', true],
      ['chainId', 'network', true],
      ['asset', 'network', true],
      ['payTo', 'request', true],
      ['amount', 'request', true],
    ]);
    expect(body.chain.fields.map((entry) => [entry.field, entry.match])).toEqual([
      ['authorizationUsed', true],
      ['transfer.token', true],
      ['transfer.from', true],
      ['transfer.to', true],
      ['transfer.value', true],
    ]);
  });

  it('verifies the official x402 receipt, whole or as its payload with the signature beside it', async () => {
    for (const receipt of [paid.x402Receipt, paid.x402Receipt.payload]) {
      const response = await verify({ signedReceipt: paid.x402Receipt.signature, receipt, expectedPayTo: paid.ref.merchant.payTo, expectedAmount: '10000', minConfirmations: 1 });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ verified: true, kind: 'x402', signature: { valid: true, role: 'current' }, context: { valid: true }, chain: { status: 'confirmed' } });
      // The ref named by the resource URL supplies payTo and amount.
      expect(response.body.context.fields.map((entry) => [entry.field, entry.source, entry.match])).toEqual([
        ['network', 'network', true],
        ['resourceUrl', 'ref', true],
        ['payTo', 'request', true],
        ['amount', 'request', true],
      ]);
      expect(response.body.chain.fields.find((entry) => entry.field === 'transfer.to')).toMatchObject({ expected: paid.ref.merchant.payTo, source: 'ref', match: true });
    }
  });

  it('grows confirmations as blocks are mined, and minConfirmations decides confirmed (a result, not an error)', async () => {
    const fresh = await payForReceipt(gateway, stack);
    const first = await verify({ signedReceipt: fresh.signedReceipt, receipt: fresh.receipt, minConfirmations: 5 });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ verified: false, chain: { status: 'unconfirmed', confirmed: false, minConfirmations: 5 } });
    const before = first.body.chain.confirmations;
    expect(before).toBeLessThan(5);
    await mine(stack, 5 - before);
    const later = await verify({ signedReceipt: fresh.signedReceipt, receipt: fresh.receipt, minConfirmations: 5 });
    expect(later.body).toMatchObject({ verified: true, chain: { status: 'confirmed', confirmations: 5 } });
    await mine(stack, 2);
    expect((await verify({ signedReceipt: fresh.signedReceipt, receipt: fresh.receipt, minConfirmations: 5 })).body.chain.confirmations).toBe(7);
  });
});

describe('tampered receipts are receipt_invalid with evidence naming what differs', () => {
  const tamperings: [string, unknown][] = [
    ['refId', 'ref_forged'],
    ['paymentId', 'pay_forged'],
    ['gatewayOrigin', 'https://evil.example.com'],
    ['resourceUrl', 'https://evil.example.com/receive/x'],
    ['payTo', '0x000000000000000000000000000000000000dEaD'],
    ['payer', '0x000000000000000000000000000000000000bEEF'],
    ['amount', '1'],
    ['authorizationNonce', `0x${'11'.repeat(32)}`],
    ['txHash', `0x${'22'.repeat(32)}`],
    ['issuedAt', 1],
    ['blockNumber', '1'],
  ];
  for (const [field, value] of tamperings) {
    it(`names ${field}`, async () => {
      const details = expectError(await verify({ signedReceipt: paid.signedReceipt, receipt: { ...paid.receipt, [field]: value }, minConfirmations: 1 }), 422, 'receipt_invalid');
      const context = details['context'] as Verification['context'];
      expect(details).toMatchObject({ reason: 'signature', kind: 'tollgate', signature: { valid: false, reason: 'unknown_signer' } });
      expect(context.content).toBe('differs_from_stored');
      expect(mismatched(context.fields)).toEqual([field]);
      const evidence = context.fields.find((entry) => entry.field === field);
      expect(evidence).toEqual({ field, expected: (paid.receipt as unknown as Record<string, unknown>)[field] ?? null, found: value, match: false, source: 'stored_receipt' });
    });
  }

  it('names an added field', async () => {
    const details = expectError(await verify({ signedReceipt: paid.signedReceipt, receipt: { ...paid.receipt, note: 'refunded' }, minConfirmations: 1 }), 422, 'receipt_invalid');
    expect(mismatched((details['context'] as Verification['context']).fields)).toEqual(['note']);
  });

  it('tells a tampered signature from tampered content: the fields all match what was stored', async () => {
    const signature = `${paid.signedReceipt.slice(0, 10)}${paid.signedReceipt[10] === 'a' ? 'b' : 'a'}${paid.signedReceipt.slice(11)}`;
    const details = expectError(await verify({ signedReceipt: signature, receipt: paid.receipt, minConfirmations: 1 }), 422, 'receipt_invalid');
    expect(details).toMatchObject({ reason: 'signature', signature: { valid: false }, context: { content: 'matches_stored' } });
    expect(mismatched((details['context'] as Verification['context']).fields)).toEqual([]);
    expectError(await verify({ signedReceipt: '0x1234', receipt: paid.receipt, minConfirmations: 1 }), 422, 'receipt_invalid');
  });

  it('refuses a receipt signed by another key even when its content is genuine', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    const { signReceipt } = await import('@tollgate/core/x402');
    const forged = await signReceipt(paid.receipt, stranger);
    const details = expectError(await verify({ signedReceipt: forged, receipt: paid.receipt, minConfirmations: 1 }), 422, 'receipt_invalid');
    expect(details['signature']).toEqual({ valid: false, signer: stranger.address, role: null, reason: 'unknown_signer' });
  });

  it('refuses expectations that do not hold, naming them', async () => {
    const details = expectError(
      await verify({ signedReceipt: paid.signedReceipt, receipt: paid.receipt, expectedPayTo: '0x000000000000000000000000000000000000dEaD', expectedAmount: '20000', minConfirmations: 1 }),
      422,
      'receipt_invalid',
    );
    expect(details).toMatchObject({ reason: 'context', signature: { valid: true } });
    const fields = (details['context'] as Verification['context']).fields;
    expect(fields.filter((entry) => !entry.match)).toEqual([
      { field: 'payTo', expected: '0x000000000000000000000000000000000000dEaD', found: paid.ref.merchant.payTo, match: false, source: 'request' },
      { field: 'amount', expected: '20000', found: '10000', match: false, source: 'request' },
    ]);
  });

  it('refuses a tampered x402 receipt and an artifact whose signature is not signedReceipt', async () => {
    const { x402Receipt } = paid;
    const tampered = { ...x402Receipt, payload: { ...x402Receipt.payload, issuedAt: x402Receipt.payload.issuedAt + 1 } };
    expect(expectError(await verify({ signedReceipt: x402Receipt.signature, receipt: tampered, minConfirmations: 1 }), 422, 'receipt_invalid')['signature']).toMatchObject({ valid: false, reason: 'unknown_signer' });
    const other = await payForReceipt(gateway, stack);
    expect(expectError(await verify({ signedReceipt: other.x402Receipt.signature, receipt: x402Receipt, minConfirmations: 1 }), 422, 'receipt_invalid')['signature']).toMatchObject({ valid: false, reason: 'artifact_signature_differs' });
    expect(expectError(await verify({ signedReceipt: x402Receipt.signature, receipt: { ...x402Receipt.payload, extra: 1 }, minConfirmations: 1 }), 422, 'receipt_invalid')).toMatchObject({ reason: 'malformed_receipt', field: 'receipt.extra' });
  });

  it('refuses malformed receipts as receipt_invalid and malformed requests as invalid_request', async () => {
    expect(expectError(await verify({ signedReceipt: paid.signedReceipt, receipt: { ...paid.receipt, amount: 'ten' }, minConfirmations: 1 }), 422, 'receipt_invalid')).toMatchObject({ reason: 'malformed_receipt', field: 'receipt.amount' });
    expect(expectError(await verify({ signedReceipt: paid.signedReceipt, receipt: 'text', minConfirmations: 1 }), 422, 'receipt_invalid')).toMatchObject({ reason: 'malformed_receipt', field: 'receipt' });
    expect(expectError(await verify({ signedReceipt: paid.signedReceipt, receipt: { ...paid.receipt, type: 'other' }, minConfirmations: 1 }), 422, 'receipt_invalid')).toMatchObject({ field: 'receipt.type' });
    expect(expectError(await verify({ signedReceipt: paid.signedReceipt, receipt: paid.receipt }), 400, 'invalid_request')).toMatchObject({ field: 'minConfirmations' });
    expect(expectError(await verify({ signedReceipt: paid.signedReceipt, minConfirmations: 1 }), 400, 'invalid_request')).toMatchObject({ field: 'receipt' });
    expect(expectError(await verify({ signedReceipt: paid.signedReceipt, receipt: paid.receipt, minConfirmations: -1 }), 400, 'invalid_request')).toMatchObject({ field: 'minConfirmations' });
    expect(expectError(await verify({ signedReceipt: paid.signedReceipt, receipt: paid.receipt, minConfirmations: 1, extra: true }), 400, 'invalid_request')).toMatchObject({ field: 'extra' });
    expect(expectError(await verify({ signedReceipt: paid.signedReceipt, receipt: paid.receipt, minConfirmations: 1, expectedAmount: '1.5' }), 400, 'invalid_request')).toMatchObject({ field: 'expectedAmount' });
  });
});
