import { recoverTypedDataAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { base, freshAccount, merchant, NOW } from '../../test/x402/fixtures';
import {
  buildPaymentRequirements,
  OFFER_RECEIPT,
  recoverX402OfferSigner,
  recoverX402ReceiptSigner,
  signX402Offer,
  signX402Receipt,
  x402OffersExtension,
  type EvmSigner,
} from './index';

const gatewayKey = freshAccount();
const accepted = buildPaymentRequirements({ network: base, payTo: merchant, amount: '10000', maxTimeoutSeconds: 300 });
const resourceUrl = `https://pay.example.com/receive/${merchant}?ref=r1`;
const offerTypes = {
  Offer: [
    { name: 'version', type: 'uint256' },
    { name: 'resourceUrl', type: 'string' },
    { name: 'scheme', type: 'string' },
    { name: 'network', type: 'string' },
    { name: 'asset', type: 'string' },
    { name: 'payTo', type: 'string' },
    { name: 'amount', type: 'string' },
    { name: 'validUntil', type: 'uint256' },
  ],
} as const;

describe('signX402Offer', () => {
  it('copies the requirement into the official Offer payload and signs it under "x402 offer"', async () => {
    const offer = await signX402Offer({ resourceUrl, requirements: accepted, acceptIndex: 0, validUntil: NOW + 300 }, gatewayKey);
    expect(Object.keys(offer)).toEqual(['format', 'acceptIndex', 'payload', 'signature']);
    expect(offer.payload).toEqual({ version: 1, resourceUrl, scheme: 'exact', network: 'eip155:8453', asset: accepted.asset, payTo: accepted.payTo, amount: '10000', validUntil: NOW + 300 });
    const signer = await recoverTypedDataAddress({
      domain: { name: 'x402 offer', version: '1', chainId: 1 },
      types: offerTypes,
      primaryType: 'Offer',
      message: { ...offer.payload, version: 1n, validUntil: BigInt(offer.payload.validUntil) },
      signature: offer.signature,
    });
    expect(signer).toBe(gatewayKey.address);
    expect(recoverX402OfferSigner(offer)).toBe(gatewayKey.address);
  });

  it('omits acceptIndex when not given and signs identically through signTypedData', async () => {
    const typedDataOnly: EvmSigner = { address: gatewayKey.address, signTypedData: (parameters) => gatewayKey.signTypedData(parameters) };
    const params = { resourceUrl, requirements: accepted, validUntil: NOW + 300 };
    const offer = await signX402Offer(params, gatewayKey);
    expect('acceptIndex' in offer).toBe(false);
    expect(await signX402Offer(params, typedDataOnly)).toEqual(offer);
  });

  it('wraps offers in the offer-receipt extension entry', async () => {
    const offer = await signX402Offer({ resourceUrl, requirements: accepted, acceptIndex: 0, validUntil: NOW + 300 }, gatewayKey);
    const entry = x402OffersExtension([offer]);
    expect(OFFER_RECEIPT).toBe('offer-receipt');
    expect(entry.info).toEqual({ offers: [offer] });
    expect(entry.schema).toMatchObject({ required: ['offers'] });
  });
});

describe('signX402Receipt', () => {
  it('signs the official Receipt payload with the transaction hash', async () => {
    const payer = freshAccount().address;
    const transaction = `0x${'ab'.repeat(32)}`;
    const receipt = await signX402Receipt({ network: 'eip155:8453', resourceUrl, payer, issuedAt: NOW, transaction }, gatewayKey);
    expect(receipt.payload).toEqual({ version: 1, network: 'eip155:8453', resourceUrl, payer, issuedAt: NOW, transaction });
    expect(recoverX402ReceiptSigner(receipt)).toBe(gatewayKey.address);
  });

  it('recovers no signer for a tampered or unencodable receipt', async () => {
    const receipt = await signX402Receipt({ network: 'eip155:8453', resourceUrl, payer: merchant, issuedAt: NOW, transaction: '' }, gatewayKey);
    expect(recoverX402ReceiptSigner({ ...receipt, payload: { ...receipt.payload, issuedAt: NOW + 1 } })).not.toBe(gatewayKey.address);
    expect(recoverX402ReceiptSigner({ ...receipt, payload: { ...receipt.payload, issuedAt: -1 } })).toBeUndefined();
    expect(recoverX402ReceiptSigner({ ...receipt, signature: '0x00' })).toBeUndefined();
  });
});
