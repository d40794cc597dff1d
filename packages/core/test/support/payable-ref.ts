// A merchant with a fixed 0.01 USDC ref on `base`, and a payer's correctly signed x402 payment for it:
// the fixture of the settlement tests that run without a chain.
import { toHex, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createNetworkRegistry, type Clock, type GatewayStores, type PaymentPayload } from '@tollgate/core';
import {
  buildPaymentRequirements,
  encodeX402Header,
  tokenEip712Domain,
  transferWithAuthorizationTypes,
} from '@tollgate/core/x402';
import { enrollMerchant, gatewayConformanceEpoch } from '@tollgate/core/testing';

/** The `base` network of the registry, as payments see it. */
export const baseNetwork = createNetworkRegistry().require('base');

/** What {@link payableRef} created. */
export interface PayableRef {
  merchantId: string;
  payTo: Address;
  refId: string;
  /** The payment's `PAYMENT-SIGNATURE` header. */
  header: string;
}

/**
 * Enrolls a merchant, creates a fixed ref for it, and signs a payment valid at `clock`'s time.
 *
 * @param stores - The merchant store (enrolls the merchant) and the ref store (creates the ref).
 * @param clock - Gives the authorization's validity window.
 * @param origin - The gateway origin of the ref's resource URL.
 * @param options - `validAfter` (unix seconds) other than 10 minutes before the clock, as x402 clients set it.
 */
export async function payableRef(stores: Pick<GatewayStores, 'merchants' | 'refs'>, clock: Clock, origin = 'https://pay.example.com', options: { validAfter?: bigint } = {}): Promise<PayableRef> {
  const merchant = await enrollMerchant(stores.merchants, privateKeyToAccount(generatePrivateKey()).address);
  const refId = toHex(crypto.getRandomValues(new Uint8Array(16))).slice(2);
  const resource = `${origin}/receive/${merchant.payTo}?ref=${refId}`;
  await stores.refs.createRef({
    id: refId,
    merchantId: merchant.merchantId,
    payTo: merchant.payTo,
    network: 'base',
    asset: 'USDC',
    amount: '10000',
    invoiceId: null,
    label: null,
    notifyUrl: null,
    snapshotJson: JSON.stringify({ v: 2, scheme: 'exact', network: 'base', payTo: merchant.payTo, asset: 'USDC', amount: '10000', resource, mimeType: 'application/json', expiresAt: 0 }),
    createdAt: new Date(gatewayConformanceEpoch),
    expiresAt: new Date(gatewayConformanceEpoch + 86_400_000),
  });
  const payer = privateKeyToAccount(generatePrivateKey());
  const now = BigInt(Math.floor(clock.now() / 1000));
  const authorization = { from: payer.address, to: merchant.payTo as Address, value: 10_000n, validAfter: options.validAfter ?? now - 600n, validBefore: now + 300n, nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) };
  const signature = await payer.signTypedData({ domain: tokenEip712Domain(baseNetwork), types: transferWithAuthorizationTypes, primaryType: 'TransferWithAuthorization', message: authorization });
  const payload: PaymentPayload = {
    x402Version: 2,
    accepted: buildPaymentRequirements({ network: baseNetwork, payTo: merchant.payTo, amount: '10000', maxTimeoutSeconds: 300 }),
    payload: { authorization: { ...authorization, value: '10000', validAfter: String(authorization.validAfter), validBefore: String(authorization.validBefore) }, signature },
  };
  return { merchantId: merchant.merchantId, payTo: merchant.payTo as Address, refId, header: encodeX402Header(payload) };
}
