// Helpers of the `/recover-settlement` tests, which run against the real gateway server (it serves the
// route through `createGateway`): the recovery call, the exact bytes of a settlement answer, the ref's
// payment requirements, and the payer's authorization executed on chain by someone other than the
// gateway (the test itself, from the dev deployer account).
import { createWalletClient, type Hash, type Hex, type LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import type { PaymentRequirements } from '@tollgate/core';
import { decodePaymentRequiredHeader } from '@tollgate/core/x402';
import { devAccountKeys, devChainDefinition, devTransport, testUsdcArtifact } from '@tollgate/gateway-server/devchain';
import { call, type JsonResponse } from './gateway';
import type { PaymentStack } from './payments';

/** The body of `POST /recover-settlement` (loose on purpose: the tests send wrong ones too). */
export type RecoveryBody = Record<string, unknown>;

/** `POST /recover-settlement` with `body`, optionally as a merchant. */
export function recover(base: string, body: RecoveryBody, options: { apiKey?: string } = {}): Promise<JsonResponse> {
  return call(base, 'POST', '/recover-settlement', { json: body, ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }) });
}

/** What a client sees of a settlement answer, byte for byte: status, `PAYMENT-RESPONSE` and body text. */
export interface AnswerBytes {
  readonly status: number;
  readonly paymentResponse: string | null;
  readonly body: string;
}

/** The {@link AnswerBytes} of a response. */
export function answerBytes(response: Pick<JsonResponse<unknown>, 'status' | 'headers' | 'text'>): AnswerBytes {
  return { status: response.status, paymentResponse: response.headers.get('payment-response'), body: response.text };
}

/** The `accepted` requirement of the ref behind `path` (from its 402). */
export async function requirementsOf(base: string, path: string): Promise<PaymentRequirements> {
  const response = await call(base, 'GET', path);
  expect(response.status, response.text).toBe(402);
  return decodePaymentRequiredHeader(response.headers.get('payment-required') ?? undefined).accepts[0]!;
}

/** The EIP-3009 part of a payment payload. */
interface Authorization {
  readonly from: Hex;
  readonly to: Hex;
  readonly value: string;
  readonly validAfter: string;
  readonly validBefore: string;
  readonly nonce: Hex;
}

/**
 * Executes the payer's signed authorization with `transferWithAuthorization` on the test USDC, sent by
 * the dev deployer: the payment settles on chain without the gateway or the facilitator knowing.
 */
export async function executeAuthorization(stack: PaymentStack, payload: unknown): Promise<{ txHash: Hash; blockNumber: bigint }> {
  const { authorization: auth, signature } = (payload as { payload: { authorization: Authorization; signature: Hex } }).payload;
  const sender = privateKeyToAccount(devAccountKeys.deployer);
  const wallet = createWalletClient({ account: sender, chain: devChainDefinition(stack.setup.chainId, stack.anvil.rpcUrl), transport: devTransport(stack.anvil.rpcUrl) });
  const txHash = await wallet.writeContract({
    address: stack.setup.usdc.address,
    abi: testUsdcArtifact.abi,
    functionName: 'transferWithAuthorization',
    args: [auth.from, auth.to, BigInt(auth.value), BigInt(auth.validAfter), BigInt(auth.validBefore), auth.nonce, signature],
  });
  const receipt = await stack.chain.waitForTransactionReceipt({ hash: txHash, pollingInterval: 50 });
  if (receipt.status !== 'success') throw new Error(`transferWithAuthorization reverted: ${txHash}`);
  return { txHash, blockNumber: receipt.blockNumber };
}

/**
 * Cancels the payer's signed authorization on chain with EIP-3009 `cancelAuthorization` (the payer signs
 * the `CancelAuthorization`, the dev deployer sends it): its nonce can then never execute.
 */
export async function cancelAuthorizationOnChain(stack: PaymentStack, payer: LocalAccount, payload: unknown): Promise<{ txHash: Hash }> {
  const { authorization: auth } = (payload as { payload: { authorization: Authorization } }).payload;
  const domain = { name: stack.setup.usdc.domain.name, version: stack.setup.usdc.domain.version, chainId: stack.setup.chainId, verifyingContract: stack.setup.usdc.address };
  const signature = await payer.signTypedData({
    domain,
    types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
    primaryType: 'CancelAuthorization',
    message: { authorizer: auth.from, nonce: auth.nonce },
  });
  const sender = privateKeyToAccount(devAccountKeys.deployer);
  const wallet = createWalletClient({ account: sender, chain: devChainDefinition(stack.setup.chainId, stack.anvil.rpcUrl), transport: devTransport(stack.anvil.rpcUrl) });
  const txHash = await wallet.writeContract({ address: stack.setup.usdc.address, abi: testUsdcArtifact.abi, functionName: 'cancelAuthorization', args: [auth.from, auth.nonce, signature] });
  const receipt = await stack.chain.waitForTransactionReceipt({ hash: txHash, pollingInterval: 50 });
  if (receipt.status !== 'success') throw new Error(`cancelAuthorization reverted: ${txHash}`);
  return { txHash };
}

/**
 * Asserts the spec's error envelope (any status below 500, JSON content type) and returns its code: what
 * the fuzz cases require of every refusal.
 */
export function expectEnvelope(response: JsonResponse<unknown>): string {
  expect(response.status, response.text).toBeLessThan(500);
  expect(response.status, response.text).toBeGreaterThanOrEqual(400);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(response.body).toEqual({ x402Version: 2, error: { code: expect.any(String), message: expect.any(String), details: expect.any(Object) } });
  return (response.body as { error: { code: string } }).error.code;
}
