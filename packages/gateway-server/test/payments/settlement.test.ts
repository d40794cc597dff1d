// Payments end to end on a real anvil chain, through the self-hosted x402 facilitator, paid by the
// official @x402/fetch + @x402/evm client: receipts, replays, conflicts, refusals and what gets logged.
import { Writable } from 'node:stream';
import { extractReceiptFromResponse, verifyReceiptSignatureEIP712, type EIP712SignedReceipt } from '@x402/extensions/offer-receipt';
import { decodePaymentResponseHeader } from '@x402/fetch';
import canonicalize from 'canonicalize';
import { sha256, toBytes, verifyTypedData, type Hash, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createNetworkRegistry,
  notificationQueue,
  verifySignedReceipt,
  type NotificationJob,
  type PaymentReceipt,
  type PaymentRequirements,
} from '@tollgate/core';
import { base64UrlEncode, utf8Encode } from '@tollgate/core/crypto';
import {
  createSignedOffer,
  decodePaymentRequiredHeader,
  receiptHash,
  type SignedTollgateOffer,
} from '@tollgate/core/x402';
import { call, expectError, startTestGateway, type TestGateway } from '../helpers/gateway';
import {
  decodeHeader,
  demoPayer,
  encodePayment,
  fundedPayer,
  mintUsdc,
  officialFetch,
  officialPaymentHeader,
  payableRef,
  signPayment,
  startPaymentStack,
  tokenOf,
  transfersTo,
  type PaymentStack,
} from '../helpers/payments';
import { TestWallClock } from '../helpers/clock';

const signingKey = generatePrivateKey();
const receiptSigner = privateKeyToAccount(signingKey).address;

let stack: PaymentStack;
let gateway: TestGateway;

beforeAll(async () => {
  stack = await startPaymentStack();
  gateway = await startTestGateway({ ...stack.gatewayEnv, GATEWAY_SIGNING_KEY: signingKey }, { clock: new TestWallClock() });
});
afterAll(async () => {
  await gateway?.close();
  await stack?.stop();
});
beforeEach(() => stack.resetCounts());

interface SettlementBody {
  x402Version: 2;
  success: true;
  network: string;
  transaction: Hash;
  payer: string;
  receiptStatus: string;
  response: { code: string; message: string };
  extensions: { 'offer-receipt': { info: { receipt: EIP712SignedReceipt }; schema: object; signedReceipt: string; receipt: PaymentReceipt } };
}

const localNetwork = () => createNetworkRegistry({ localUsdc: stack.setup.usdc.address }).require('local');
const pay = (path: string, header: string) => call(gateway.url, 'GET', path, { headers: { 'payment-signature': header } });

async function notificationJobs(paymentId?: string): Promise<NotificationJob[]> {
  const { rows } = await gateway.server.database.sql.query<{ payload: NotificationJob }>(
    `SELECT payload FROM tollgate_jobs WHERE queue = $1 ${paymentId === undefined ? '' : 'AND idempotency_key = $2'} ORDER BY id`,
    paymentId === undefined ? [notificationQueue] : [notificationQueue, `payment:${paymentId}`],
  );
  return rows.map((row) => row.payload);
}

async function accepted(path: string): Promise<PaymentRequirements> {
  const response = await call(gateway.url, 'GET', path);
  return decodePaymentRequiredHeader(response.headers.get('payment-required') ?? undefined).accepts[0]!;
}

describe('paying refs end to end with the official x402 client', () => {
  it('pays a fixed ref: 200, the spec’s settlement response, a verifiable receipt, one transfer, one notification job', async () => {
    const ref = await payableRef(gateway, { extra: { invoiceId: 'INV-42', notifyUrl: 'https://hooks.example.com/paid' } });
    const payer = demoPayer(stack);
    const response = await officialFetch(stack, payer)(ref.resource);
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const body = JSON.parse(text) as SettlementBody;
    expect(decodePaymentResponseHeader(response.headers.get('payment-response') ?? '')).toEqual(body);
    expect(body).toEqual({
      x402Version: 2,
      success: true,
      network: 'eip155:31337',
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      payer: payer.address,
      receiptStatus: 'issued',
      response: { code: 'settled', message: expect.any(String) },
      extensions: { 'offer-receipt': { info: { receipt: expect.any(Object) }, schema: expect.any(Object), signedReceipt: expect.stringMatching(/^0x[0-9a-f]{130}$/), receipt: expect.any(Object) } },
    });
    const { receipt, signedReceipt, info } = body.extensions['offer-receipt'];
    expect(receipt).toEqual({
      type: 'x402.payment.receipt',
      version: 1,
      refId: ref.refId,
      paymentId: expect.stringMatching(/^auth:31337:0x[0-9a-f]{40}:0x[0-9a-f]{64}$/),
      invoiceId: 'INV-42',
      gatewayOrigin: new URL(ref.resource).origin,
      resourceUrl: ref.resource,
      network: 'eip155:31337',
      chainId: 31337,
      asset: stack.setup.usdc.address,
      payTo: ref.merchant.payTo,
      payer: payer.address,
      amount: '10000',
      authorizationNonce: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      txHash: body.transaction,
      issuedAt: Math.floor(gateway.clock.now() / 1000),
    });
    expect(verifySignedReceipt(signedReceipt, receipt, receiptSigner)).toMatchObject({ valid: true, receiptHash: receiptHash(receipt) });
    // The recipe of the README (section "Gateway: payments"), with viem and an RFC 8785 library only.
    const documentedHash = sha256(toBytes(canonicalize(receipt)!));
    expect(documentedHash).toBe(`0x${receiptHash(receipt)}`);
    const recipe = {
      address: receiptSigner,
      signature: signedReceipt as Hex,
      primaryType: 'TollgateReceipt' as const,
      domain: { name: 'Tollgate Receipt', version: '1' },
      types: { TollgateReceipt: [{ name: 'receiptHash', type: 'bytes32' }] },
    };
    expect(await verifyTypedData({ ...recipe, message: { receiptHash: documentedHash } })).toBe(true);
    expect(await verifyTypedData({ ...recipe, message: { receiptHash: sha256(toBytes(canonicalize({ ...receipt, amount: '1' })!)) } })).toBe(false);
    expect((await verifyReceiptSignatureEIP712(info.receipt)).signer).toBe(receiptSigner);
    expect(extractReceiptFromResponse(new Response(text, { headers: { 'payment-response': response.headers.get('payment-response') ?? '' } }))).toEqual(info.receipt);

    const onChain = await stack.chain.getTransactionReceipt({ hash: body.transaction });
    expect(onChain.status).toBe('success');
    expect(await transfersTo(stack, ref.merchant.payTo)).toEqual([{ from: payer.address, to: ref.merchant.payTo, value: 10_000n, transactionHash: body.transaction }]);
    expect(stack.counts.settle).toBe(1);

    expect(await notificationJobs(receipt.paymentId)).toEqual([
      {
        merchantId: ref.merchant.merchantId,
        refId: ref.refId,
        url: 'https://hooks.example.com/paid',
        notification: {
          event: 'payment.settled',
          id: expect.stringMatching(/^ntf_[0-9a-f]{32}$/),
          createdAt: receipt.issuedAt,
          data: { refId: ref.refId, invoiceId: 'INV-42', receipt, receiptHash: receiptHash(receipt), signedReceipt },
        },
      },
    ]);
  });

  it('pays an open ref with the amount from the query; the merchant’s webhook is the notification target', async () => {
    const ref = await payableRef(gateway, { amount: undefined });
    const response = await officialFetch(stack, demoPayer(stack))(`${ref.resource}&amount=25000`);
    const body = (await response.json()) as SettlementBody;
    expect(response.status).toBe(200);
    expect(body.extensions['offer-receipt'].receipt).toMatchObject({ amount: '25000', refId: ref.refId });
    expect((await transfersTo(stack, ref.merchant.payTo)).map((transfer) => transfer.value)).toEqual([25_000n]);
    const [job] = await notificationJobs(body.extensions['offer-receipt'].receipt.paymentId);
    expect(job?.url).toBeNull();
  });

  it('accepts PAYMENT-SIGNATURE in base64url as well', async () => {
    const ref = await payableRef(gateway);
    const { payload } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    const response = await pay(ref.path, base64UrlEncode(utf8Encode(JSON.stringify(payload))));
    expect(response.status, response.text).toBe(200);
  });
});

describe('exactly once', () => {
  it('answers a replayed PAYMENT-SIGNATURE with identical bytes, without a second settle or transfer', async () => {
    const ref = await payableRef(gateway);
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    const first = await pay(ref.path, header);
    expect(first.status, first.text).toBe(200);
    const again = await pay(ref.path, header);
    expect({ status: again.status, text: again.text, header: again.headers.get('payment-response') }).toEqual({
      status: 200,
      text: first.text,
      header: first.headers.get('payment-response'),
    });
    // The replay is verified before the claim (the facilitator refuses the used nonce), then answered
    // from the stored outcome: one verify more, never a second settle.
    expect(stack.counts).toEqual({ settle: 1, verify: 2 });
    expect(await transfersTo(stack, ref.merchant.payTo)).toHaveLength(1);
  });

  it('honours a payment id: same id and payload → the stored answer; same id, other payload → 409; other id, same authorization → the stored answer (a twin)', async () => {
    const ref = await payableRef(gateway);
    const requirements = await accepted(ref.path);
    const id = `pay_${crypto.randomUUID().replaceAll('-', '')}`;
    const withId = (paymentId: string) => ({ 'payment-identifier': { info: { required: false, id: paymentId } } });
    const payer = demoPayer(stack);
    const payload = await signPayment(tokenOf(stack), payer, requirements, { extensions: withId(id) });
    const first = await pay(ref.path, encodePayment(payload));
    expect(first.status, first.text).toBe(200);
    expect((first.body as unknown as SettlementBody).extensions['offer-receipt'].receipt.paymentId).toBe(id);
    expect((await pay(ref.path, encodePayment(payload))).text).toBe(first.text);

    const other = await signPayment(tokenOf(stack), payer, requirements, { extensions: withId(id) });
    expect(expectError(await pay(ref.path, encodePayment(other)), 409, 'conflict')).toEqual({ paymentId: id, reason: 'payload_mismatch' });
    const secondId = { ...payload, extensions: withId(`pay_${crypto.randomUUID().replaceAll('-', '')}`) };
    // Another id over the same settled authorization is a twin: the stored answer, byte for byte (see receive-twin.test.ts).
    expect((await pay(ref.path, encodePayment(secondId))).text).toBe(first.text);
    const elsewhere = await payableRef(gateway, { merchant: ref.merchant });
    expect(expectError(await pay(elsewhere.path, encodePayment(payload)), 409, 'conflict')).toMatchObject({ reason: 'other_ref' });
    expect(stack.counts.settle).toBe(1);
  });
});

describe('refusals', () => {
  type Payload = { accepted: Record<string, unknown>; payload: { authorization: Record<string, string>; signature: string } };

  it('refuses tampered payments before any facilitator call, naming the field', async () => {
    const ref = await payableRef(gateway);
    const cases: [string, (payload: Payload) => void, string][] = [
      ['amount', (p) => (p.payload.authorization.value = '1'), 'authorization.value'],
      ['accepted amount', (p) => (p.accepted.amount = '1'), 'accepted'],
      ['payTo', (p) => (p.payload.authorization.to = privateKeyToAccount(generatePrivateKey()).address), 'authorization.to'],
      ['network', (p) => (p.accepted.network = 'eip155:8453'), 'network'],
      ['asset', (p) => (p.accepted.asset = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'), 'accepted'],
      ['validBefore', (p) => (p.payload.authorization.validBefore = String(Number(p.payload.authorization.validBefore) + 1)), 'signature'],
      ['signature', (p) => (p.payload.signature = `${p.payload.signature.slice(0, 10)}${p.payload.signature[10] === 'a' ? 'b' : 'a'}${p.payload.signature.slice(11)}`), 'signature'],
    ];
    for (const [name, tamper, field] of cases) {
      const { payload } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
      const copy = structuredClone(payload) as unknown as Payload;
      tamper(copy);
      expect(expectError(await pay(ref.path, encodePayment(copy)), 402, 'payment_verification_failed'), name).toMatchObject({ field });
    }
    expect(stack.counts).toEqual({ settle: 0, verify: 0 });
    expect(await transfersTo(stack, ref.merchant.payTo)).toEqual([]);
  });

  it('checks the echoed Tollgate offer: signed by this gateway, unexpired, matching the payment', async () => {
    const ref = await payableRef(gateway);
    const negotiation = await call(gateway.url, 'GET', ref.path);
    const required = decodePaymentRequiredHeader(negotiation.headers.get('payment-required') ?? undefined);
    const offered = required.extensions?.['tollgate-offer'] as { info: SignedTollgateOffer };
    const attempt = async (offer: unknown) => {
      const extensions = { ...required.extensions, 'tollgate-offer': { ...offered, info: offer } };
      // Valid for maxTimeoutSeconds from the gateway's now, which this test moves past the offer's expiry.
      const validBefore = BigInt(Math.floor(gateway.clock.now() / 1000)) + 300n;
      const payload = await signPayment(tokenOf(stack), demoPayer(stack), required.accepts[0]!, { validBefore, extensions });
      return pay(ref.path, encodePayment(payload));
    };
    const forged = await createSignedOffer(
      { gatewayOrigin: offered.info.payload.gatewayOrigin, resourceUrl: ref.resource, requirements: required.accepts[0]!, network: localNetwork(), expiry: offered.info.payload.expiry },
      privateKeyToAccount(generatePrivateKey()),
    );
    expect(expectError(await attempt(forged), 402, 'payment_verification_failed')).toMatchObject({ field: 'offer.signature', reason: 'wrong_signer' });
    const cheaper = { ...offered.info, payload: { ...offered.info.payload, amount: '1' } };
    expect(expectError(await attempt(cheaper), 402, 'payment_verification_failed')).toMatchObject({ field: 'offer.amount', reason: 'mismatch' });
    gateway.clock.advance(400_000);
    try {
      expect(expectError(await attempt(offered.info), 402, 'payment_verification_failed')).toMatchObject({ field: 'offer.expiry', reason: 'expired' });
    } finally {
      gateway.clock.advance(-400_000);
    }
    expect(stack.counts.verify).toBe(0);
  });

  it('refuses an expired authorization', async () => {
    const ref = await payableRef(gateway);
    const now = BigInt(Math.floor(gateway.clock.now() / 1000));
    const payload = await signPayment(tokenOf(stack), demoPayer(stack), await accepted(ref.path), { validAfter: now - 600n, validBefore: now - 1n });
    expect(expectError(await pay(ref.path, encodePayment(payload)), 402, 'payment_verification_failed')).toMatchObject({ field: 'authorization.validBefore', reason: 'expired' });
    expect(stack.counts.verify).toBe(0);
  });

  it('relays the facilitator’s refusal of an unfunded payer and releases the claim, so the same payment succeeds once funded', async () => {
    const ref = await payableRef(gateway);
    const payer = await fundedPayer(stack, 0n);
    const payload = await signPayment(tokenOf(stack), payer, await accepted(ref.path));
    const refused = expectError(await pay(ref.path, encodePayment(payload)), 402, 'payment_verification_failed');
    expect(refused).toMatchObject({ field: 'facilitator', reason: expect.stringMatching(/insufficient/) });
    expect(stack.counts).toEqual({ settle: 0, verify: 1 });
    const { rows } = await gateway.server.database.sql.query('SELECT payment_id FROM gateway_payments WHERE payer = $1', [payer.address]);
    expect(rows).toEqual([]);
    await mintUsdc(stack, payer.address, 10_000n);
    const paid = await pay(ref.path, encodePayment(payload));
    expect(paid.status, paid.text).toBe(200);
  });

  it('answers facilitator_unavailable (503, Retry-After) when the facilitator cannot be reached, leaving no claim behind', async () => {
    const { startFacilitatorServer } = await import('@tollgate/gateway-server/devchain');
    const gone = await startFacilitatorServer({ facilitator: stack.local.facilitator });
    await gone.stop();
    const unreachable = await startTestGateway({ ...stack.gatewayEnv, GATEWAY_SIGNING_KEY: signingKey, GATEWAY_FACILITATOR_URL: gone.url }, { clock: new TestWallClock() });
    try {
      const ref = await payableRef(unreachable);
      const { header } = await officialPaymentHeader(unreachable, ref.path, stack, demoPayer(stack));
      const response = await call(unreachable.url, 'GET', ref.path, { headers: { 'payment-signature': header } });
      expect(expectError(response, 503, 'facilitator_unavailable')).toMatchObject({ operation: 'verify', reason: 'network' });
      expect(response.headers.get('retry-after')).toBe('5');
      expect((await unreachable.server.database.sql.query('SELECT payment_id FROM gateway_payments')).rows).toEqual([]);
    } finally {
      await unreachable.close();
    }
  });

  it('refuses a payment after its ref was revoked or its payTo retired, although the 402 came before', async () => {
    const ref = await payableRef(gateway);
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    expect((await call(gateway.url, 'POST', `/ref/${ref.refId}/revoke`, { apiKey: ref.merchant.apiKey })).status).toBe(200);
    expectError(await pay(ref.path, header), 410, 'ref_revoked');

    const live = await payableRef(gateway);
    const second = await officialPaymentHeader(gateway, live.path, stack, demoPayer(stack));
    expect((await call(gateway.url, 'POST', `/payto/${live.merchant.payTo}/revoke`, { apiKey: live.merchant.apiKey })).status).toBe(200);
    expectError(await pay(live.path, second.header), 410, 'payto_revoked');
    expect(stack.counts).toEqual({ settle: 0, verify: 0 });
  });

  it('still returns the receipt of a payment settled before its ref was revoked', async () => {
    const ref = await payableRef(gateway);
    const { header } = await officialPaymentHeader(gateway, ref.path, stack, demoPayer(stack));
    const first = await pay(ref.path, header);
    expect(first.status).toBe(200);
    await call(gateway.url, 'POST', `/ref/${ref.refId}/revoke`, { apiKey: ref.merchant.apiKey });
    expect((await pay(ref.path, header)).text).toBe(first.text);
  });
});

describe('logging', () => {
  it('never logs PAYMENT-SIGNATURE, the authorization signature or facilitator credentials', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const facilitatorSecret = 'facilitator-secret-token-0123456789';
    const logged = await startTestGateway(
      { ...stack.gatewayEnv, GATEWAY_SIGNING_KEY: signingKey, LOG_LEVEL: 'trace', GATEWAY_FACILITATOR_HEADERS: JSON.stringify({ 'x-api-key': facilitatorSecret }) },
      { clock: new TestWallClock(), logDestination: destination },
    );
    try {
      const ref = await payableRef(logged);
      const negotiation = await call(logged.url, 'GET', ref.path);
      const required = decodePaymentRequiredHeader(negotiation.headers.get('payment-required') ?? undefined);
      const payload = await signPayment(tokenOf(stack), demoPayer(stack), required.accepts[0]!);
      const header = encodePayment(payload);
      const response = await call(logged.url, 'GET', ref.path, { headers: { 'payment-signature': header } });
      expect(response.status).toBe(200);
      const refused = { ...payload, payload: { ...(payload.payload as object), signature: `0x${'22'.repeat(65)}` } };
      await call(logged.url, 'GET', ref.path, { headers: { 'payment-signature': encodePayment(refused) } });
      const text = lines.join('');
      expect(text).toContain('"payment":"settled"');
      const signature = (payload.payload as { signature: string }).signature;
      for (const secret of [header, header.slice(20, 80), signature, signature.slice(2), signature.slice(2, 66), signingKey.slice(2), facilitatorSecret, '22'.repeat(65)]) {
        expect(text).not.toContain(secret);
      }
    } finally {
      await logged.close();
    }
  });
});

it('decodes our PAYMENT-RESPONSE with a plain base64 JSON decode too', async () => {
  const ref = await payableRef(gateway);
  const response = await officialFetch(stack, demoPayer(stack))(ref.resource);
  expect(decodeHeader(response.headers.get('payment-response'))).toEqual(await response.json());
});
