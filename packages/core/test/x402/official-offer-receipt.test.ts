// Interop with @x402/extensions/offer-receipt and @x402/fetch: official tools read and verify the
// offers and receipts Tollgate signs.
import { decodePaymentRequiredHeader } from '@x402/core/http';
import {
  decodeSignedOffers,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  findAcceptsObjectFromSignedOffer,
  hashOfferTypedData,
  hashReceiptTypedData,
  verifyOfferSignatureEIP712,
  verifyReceiptMatchesOffer,
  verifyReceiptSignatureEIP712,
  type EIP712SignedOffer,
  type EIP712SignedReceipt,
} from '@x402/extensions/offer-receipt';
import { decodePaymentResponseHeader as fetchDecodePaymentResponse } from '@x402/fetch';
import { recoverAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { verifySignedReceipt } from '@tollgate/core';
import {
  buildPaymentReceipt,
  buildPaymentRequired,
  buildPaymentRequirements,
  buildSettlementResponse,
  encodeX402Header,
  OFFER_RECEIPT,
  recoverX402OfferSigner,
  recoverX402ReceiptSigner,
  signReceipt,
  signX402Offer,
  signX402Receipt,
  x402OffersExtension,
} from '@tollgate/core/x402';
import { base, freshAccount, merchant, randomNonce } from './fixtures';

const gatewayKey = freshAccount();
const payer = freshAccount().address;
const resourceUrl = `https://pay.example.com/receive/${merchant}?ref=r_demo`;
const accepted = buildPaymentRequirements({ network: base, payTo: merchant, amount: '10000', maxTimeoutSeconds: 300 });
const now = () => Math.floor(Date.now() / 1000);

async function settlement() {
  const issuedAt = now();
  const txHash = randomNonce();
  const receipt = buildPaymentReceipt({
    refId: 'r_demo',
    paymentId: 'pay_0123456789abcdef0123456789abcdef',
    gatewayOrigin: 'https://pay.example.com',
    resourceUrl,
    network: base,
    payTo: merchant,
    payer,
    amount: '10000',
    authorizationNonce: randomNonce(),
    txHash,
    blockNumber: 42n,
    issuedAt,
  });
  const x402Receipt = await signX402Receipt({ network: receipt.network, resourceUrl, payer, issuedAt, transaction: txHash }, gatewayKey);
  return buildSettlementResponse({ receipt, signedReceipt: await signReceipt(receipt, gatewayKey), x402Receipt });
}

describe('offers', () => {
  it('verifyOfferSignatureEIP712 recovers the gateway key from our offer', async () => {
    const offer = await signX402Offer({ resourceUrl, requirements: accepted, acceptIndex: 0, validUntil: now() + 300 }, gatewayKey);
    const verified = await verifyOfferSignatureEIP712(offer as EIP712SignedOffer);
    expect(verified).toEqual({ signer: gatewayKey.address, payload: offer.payload });
    expect(recoverX402OfferSigner(offer)).toBe(verified.signer);
  });

  it('hashes offers and receipts exactly as the official helpers', async () => {
    const offer = await signX402Offer({ resourceUrl, requirements: accepted, validUntil: 0 }, gatewayKey);
    const receipt = await signX402Receipt({ network: base.caip2, resourceUrl, payer, issuedAt: now(), transaction: '' }, gatewayKey);
    expect(await recoverAddress({ hash: hashOfferTypedData(offer.payload), signature: offer.signature })).toBe(gatewayKey.address);
    expect(await recoverAddress({ hash: hashReceiptTypedData(receipt.payload), signature: receipt.signature })).toBe(gatewayKey.address);
  });

  it('official clients find our offers in PAYMENT-REQUIRED and match them to accepts[]', async () => {
    const offer = await signX402Offer({ resourceUrl, requirements: accepted, acceptIndex: 0, validUntil: now() + 300 }, gatewayKey);
    const header = encodeX402Header(buildPaymentRequired({ resource: { url: resourceUrl }, accepts: [accepted], extensions: { [OFFER_RECEIPT]: x402OffersExtension([offer]) } }));
    const required = decodePaymentRequiredHeader(header);
    const offers = extractOffersFromPaymentRequired(required);
    expect(offers).toEqual([offer]);
    const [decoded] = decodeSignedOffers(offers);
    expect(decoded).toMatchObject({ amount: '10000', payTo: merchant, network: base.caip2, acceptIndex: 0 });
    expect(findAcceptsObjectFromSignedOffer(decoded!, required.accepts)).toEqual(accepted);
  });
});

describe('receipts', () => {
  it('@x402/fetch decodes our PAYMENT-RESPONSE, and extractReceiptFromResponse finds the official receipt', async () => {
    const { body, header } = await settlement();
    const decoded = fetchDecodePaymentResponse(header);
    expect(decoded).toMatchObject({ success: true, transaction: body.transaction, network: base.caip2, payer });
    const official = extractReceiptFromResponse(new Response('{}', { headers: { 'PAYMENT-RESPONSE': header } }));
    expect(official).toEqual(body.extensions[OFFER_RECEIPT].info.receipt);
  });

  it('verifyReceiptSignatureEIP712 recovers the gateway key, and the receipt matches the offer', async () => {
    const { body, header } = await settlement();
    const official = extractReceiptFromResponse(new Response('{}', { headers: { 'PAYMENT-RESPONSE': header } })) as EIP712SignedReceipt;
    const verified = await verifyReceiptSignatureEIP712(official);
    expect(verified.signer).toBe(gatewayKey.address);
    expect(verified.payload).toMatchObject({ version: 1, network: base.caip2, resourceUrl, payer, transaction: body.transaction });
    expect(recoverX402ReceiptSigner(official as never)).toBe(gatewayKey.address);
    const offer = await signX402Offer({ resourceUrl, requirements: accepted, acceptIndex: 0, validUntil: now() + 300 }, gatewayKey);
    const [decodedOffer] = decodeSignedOffers([offer as EIP712SignedOffer]);
    expect(verifyReceiptMatchesOffer(official, decodedOffer!, [payer])).toBe(true);
  });

  it('our own receipt in the same header still verifies after the official decode', async () => {
    const { header } = await settlement();
    const decoded = fetchDecodePaymentResponse(header) as { extensions: Record<string, { signedReceipt: string; receipt: unknown }> };
    const ours = decoded.extensions[OFFER_RECEIPT]!;
    expect(verifySignedReceipt(ours.signedReceipt, ours.receipt, gatewayKey.address)).toMatchObject({ valid: true });
  });
});
