// Interop with the official x402 TypeScript SDK (2.27): its client pays Tollgate's requirements, its
// header codecs read Tollgate's headers, and Tollgate verifies what it produces.
import { x402Client, x402HTTPClient } from '@x402/core/client';
import {
  decodePaymentRequiredHeader as officialDecodePaymentRequired,
  decodePaymentSignatureHeader as officialDecodePaymentSignature,
  encodePaymentSignatureHeader as officialEncodePaymentSignature,
} from '@x402/core/http';
import type { PaymentRequired as OfficialPaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import {
  appendPaymentIdentifierToExtensions,
  declarePaymentIdentifierExtension,
  extractPaymentIdentifier as officialExtractPaymentIdentifier,
  isValidPaymentId as officialIsValidPaymentId,
} from '@x402/extensions/payment-identifier';
import { describe, expect, it } from 'vitest';
import type { PaymentPayload } from '@tollgate/core';
import { base64UrlEncode, utf8Encode } from '@tollgate/core/crypto';
import {
  buildPaymentRequired,
  buildPaymentRequirements,
  createSignedOffer,
  declarePaymentIdentifier,
  decodePaymentSignatureHeader,
  encodeX402Header,
  extractEchoedOffer,
  extractPaymentIdentifier,
  generatePaymentId,
  isValidPaymentId,
  OFFER_RECEIPT,
  PAYMENT_IDENTIFIER,
  PaymentVerificationError,
  signX402Offer,
  TOLLGATE_OFFER,
  tollgateOfferExtension,
  verifyExactPayment,
  verifySignedOffer,
  x402OffersExtension,
} from '@tollgate/core/x402';
import { base, freshAccount, merchant, withAuthorization, withSignature } from './fixtures';

const gatewayKey = freshAccount();
const payer = freshAccount();
const gatewayOrigin = 'https://pay.example.com';
const resourceUrl = `${gatewayOrigin}/receive/${merchant}?ref=r_demo`;
const accepted = buildPaymentRequirements({ network: base, payTo: merchant, amount: '10000', maxTimeoutSeconds: 300 });
const now = () => Math.floor(Date.now() / 1000);

async function paymentRequired() {
  const expiry = now() + 300;
  const offer = await createSignedOffer({ gatewayOrigin, resourceUrl, requirements: accepted, network: base, expiry }, gatewayKey);
  const x402Offer = await signX402Offer({ resourceUrl, requirements: accepted, acceptIndex: 0, validUntil: expiry }, gatewayKey);
  const required = buildPaymentRequired({
    resource: { url: resourceUrl, description: 'Demo ref', mimeType: 'application/json' },
    accepts: [accepted],
    extensions: {
      [PAYMENT_IDENTIFIER]: declarePaymentIdentifier(),
      [OFFER_RECEIPT]: x402OffersExtension([x402Offer]),
      [TOLLGATE_OFFER]: tollgateOfferExtension(offer),
    },
    error: 'PAYMENT-SIGNATURE header is required',
  });
  return { required, offer, expiry };
}

/** Pays like `@x402/fetch` does: read PAYMENT-REQUIRED, create the payload, send PAYMENT-SIGNATURE. */
async function officialPayment(header: string, paymentId?: string): Promise<string> {
  const client = x402Client.fromConfig({ schemes: [{ network: base.caip2, client: new ExactEvmScheme(payer) }] });
  if (paymentId !== undefined) {
    client.onBeforePaymentCreation(async ({ paymentRequired }) => {
      appendPaymentIdentifierToExtensions(paymentRequired.extensions ?? {}, paymentId);
    });
  }
  const http = new x402HTTPClient(client);
  const required = http.getPaymentRequiredResponse((name) => (name === 'PAYMENT-REQUIRED' ? header : null));
  const payload = await http.createPaymentPayload(required);
  return http.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE'] as string;
}

describe('official header codecs read ours and we read theirs', () => {
  it('decodes our PAYMENT-REQUIRED with the official decoder, byte-identical JSON', async () => {
    const { required } = await paymentRequired();
    const header = encodeX402Header(required);
    expect(officialDecodePaymentRequired(header)).toEqual(JSON.parse(JSON.stringify(required)));
  });

  it('decodes an official PAYMENT-SIGNATURE, and the official decoder refuses base64url (why we emit standard base64)', async () => {
    const { required } = await paymentRequired();
    const header = await officialPayment(encodeX402Header(required));
    const ours = decodePaymentSignatureHeader(header);
    expect(ours).toEqual(officialDecodePaymentSignature(header));
    const urlForm = base64UrlEncode(utf8Encode(JSON.stringify({ ...ours, resource: { url: `${resourceUrl}&q=?>?>` } })));
    expect(urlForm).toMatch(/[-_]/);
    expect(() => officialDecodePaymentSignature(urlForm)).toThrow();
    expect(decodePaymentSignatureHeader(urlForm).resource?.url).toBe(`${resourceUrl}&q=?>?>`);
    expect(decodePaymentSignatureHeader(officialEncodePaymentSignature(ours as never))).toEqual(ours);
  });
});

describe('an official @x402/evm client paying our requirements', () => {
  it('echoes accepted exactly, and verifyExactPayment accepts its signature', async () => {
    const { required } = await paymentRequired();
    const payload = decodePaymentSignatureHeader(await officialPayment(encodeX402Header(required)));
    expect(payload.accepted).toEqual(accepted);
    expect(verifyExactPayment({ payload, expected: accepted, network: base, now: now() })).toMatchObject({ payer: payer.address, signatureStatus: 'verified' });
  });

  it('echoes our signed offer, which verifies as ours and matching', async () => {
    const { required, offer, expiry } = await paymentRequired();
    const payload = decodePaymentSignatureHeader(await officialPayment(encodeX402Header(required)));
    const echoed = extractEchoedOffer(payload);
    expect(echoed).toEqual(offer);
    const expected = { gatewayOrigin, resourceUrl, payTo: merchant, amount: '10000', network: base.caip2, chainId: base.chainId, asset: base.usdc.address };
    expect(verifySignedOffer(echoed, { expectedSigner: gatewayKey.address, now: now(), expected })).toMatchObject({ ...expected, expiry });
  });

  it('carries a payment id set through the official payment-identifier helper', async () => {
    const { required } = await paymentRequired();
    const paymentId = generatePaymentId();
    const payload = decodePaymentSignatureHeader(await officialPayment(encodeX402Header(required), paymentId));
    expect(extractPaymentIdentifier(payload)).toBe(paymentId);
    expect(officialExtractPaymentIdentifier(payload as never)).toBe(paymentId);
    expect(extractPaymentIdentifier(decodePaymentSignatureHeader(await officialPayment(encodeX402Header(required))))).toBeUndefined();
  });

  it('refuses tampered copies of the official payment, naming the field', async () => {
    const { required } = await paymentRequired();
    const payload = decodePaymentSignatureHeader(await officialPayment(encodeX402Header(required)));
    const inner = payload.payload as { authorization: Record<string, string>; signature: string };
    const flipped = `${inner.signature.slice(0, 10)}${inner.signature[10] === 'a' ? 'b' : 'a'}${inner.signature.slice(11)}`;
    const tampered: [PaymentPayload, string][] = [
      [withAuthorization(payload, { value: '1' }), 'authorization.value'],
      [withAuthorization(payload, { to: freshAccount().address }), 'authorization.to'],
      [withAuthorization(payload, { validBefore: String(Number(inner.authorization['validBefore']) + 1) }), 'signature'],
      [withAuthorization(payload, { from: freshAccount().address }), 'signature'],
      [withSignature(payload, flipped), 'signature'],
      [{ ...payload, accepted: { ...payload.accepted, amount: '1' } }, 'accepted'],
      [{ ...payload, accepted: { ...payload.accepted, payTo: freshAccount().address } }, 'accepted'],
    ];
    for (const [copy, field] of tampered) {
      let caught: unknown;
      try {
        verifyExactPayment({ payload: copy, expected: accepted, network: base, now: now() });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(PaymentVerificationError);
      expect((caught as PaymentVerificationError).field).toBe(field);
    }
  });
});

describe('payment-identifier agrees with @x402/extensions', () => {
  it('declares the same extension entry', () => {
    expect(declarePaymentIdentifier()).toEqual(declarePaymentIdentifierExtension(false));
    expect(declarePaymentIdentifier({ required: true })).toEqual(declarePaymentIdentifierExtension(true));
  });

  it('accepts and refuses the same ids', () => {
    for (const id of ['a'.repeat(15), 'a'.repeat(16), 'a'.repeat(128), 'a'.repeat(129), 'pay_ok-id_0123456789', 'pay_bad id 01234567', 'pay_ünïcode_01234567', generatePaymentId()]) {
      expect([id, isValidPaymentId(id)]).toEqual([id, officialIsValidPaymentId(id)]);
    }
  });

  it('keeps declared extensions intact through the official client merge', async () => {
    const { required } = await paymentRequired();
    const payload = decodePaymentSignatureHeader(await officialPayment(encodeX402Header(required)));
    const declared = JSON.parse(JSON.stringify(required)) as OfficialPaymentRequired;
    expect(payload.extensions?.[OFFER_RECEIPT]).toEqual(declared.extensions?.[OFFER_RECEIPT]);
    expect(payload.extensions?.[PAYMENT_IDENTIFIER]).toEqual(declared.extensions?.[PAYMENT_IDENTIFIER]);
  });
});
