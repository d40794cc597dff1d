// Shared fixtures of the x402 tests: networks, accounts and payments signed with viem directly, so the
// code under test never produced what it is checked against.
import { toHex, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { PaymentPayload, PaymentRequirements, GatewayNetwork } from '@tollgate/core';
import { transferWithAuthorizationTypes } from '@tollgate/core/x402';

export const base: GatewayNetwork = {
  name: 'base',
  caip2: 'eip155:8453',
  chainId: 8453,
  usdc: { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', name: 'USD Coin', version: '2', decimals: 6 },
};

export const baseSepolia: GatewayNetwork = {
  name: 'base-sepolia',
  caip2: 'eip155:84532',
  chainId: 84532,
  usdc: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USDC', version: '2', decimals: 6 },
};

export const merchant: Address = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';

/** A fixed "now" (2026-03-01T00:00:00Z) in Unix seconds. */
export const NOW = 1_772_323_200;

export function freshAccount(): LocalAccount {
  return privateKeyToAccount(generatePrivateKey());
}

export function randomNonce(): Hex {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}

/** The EIP-712 types payers sign EIP-3009 authorizations with (core's single definition). */
export const authorizationTypes = transferWithAuthorizationTypes;

export interface SignedPaymentOptions {
  network: GatewayNetwork;
  accepted: Readonly<PaymentRequirements>;
  payer: LocalAccount;
  /** Fields signed instead of the ones derived from `accepted`. */
  authorization?: Partial<{ to: Address; value: string; validAfter: string; validBefore: string; nonce: Hex }>;
  /** Domain overrides, to sign under a wrong domain. */
  domain?: Partial<{ name: string; version: string; chainId: number; verifyingContract: Address }>;
}

/** An exact EIP-3009 payment signed with viem's `signTypedData`, as a wallet would. */
export async function signedPayment(options: SignedPaymentOptions): Promise<PaymentPayload> {
  const { network, accepted, payer } = options;
  const authorization = {
    from: payer.address,
    to: accepted.payTo as Address,
    value: accepted.amount,
    validAfter: String(NOW - 600),
    validBefore: String(NOW + 300),
    nonce: randomNonce(),
    ...options.authorization,
  };
  const signature = await payer.signTypedData({
    domain: { name: network.usdc.name, version: network.usdc.version, chainId: network.chainId, verifyingContract: network.usdc.address, ...options.domain },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: {
      ...authorization,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
    },
  });
  return { x402Version: 2, resource: { url: 'https://pay.example.com/receive/x?ref=r1' }, accepted: { ...accepted, extra: { ...accepted.extra } }, payload: { authorization, signature } };
}

/** A copy of `payload` with `authorization` fields replaced (the signature is kept, so it no longer matches). */
export function withAuthorization(payload: PaymentPayload, changes: Record<string, unknown>): PaymentPayload {
  const inner = payload.payload as { authorization: Record<string, unknown>; signature: string };
  return { ...payload, payload: { ...inner, authorization: { ...inner.authorization, ...changes } } };
}

/** A copy of `payload` with another signature. */
export function withSignature(payload: PaymentPayload, signature: string): PaymentPayload {
  return { ...payload, payload: { ...payload.payload, signature } };
}
