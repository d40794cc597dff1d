// Tollgate's facilitator client (`createHttpFacilitator` from @tollgate/core) against the real
// self-hosted x402 facilitator on an anvil chain, with payments made by the official x402 client.
import { x402HTTPClient } from '@x402/core/client';
import { parseEventLogs, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHttpFacilitator,
  type Facilitator,
  type GatewayNetwork,
  type PaymentPayload,
  type PaymentRequirements,
} from '@tollgate/core';
import { findAuthorizationSettlement } from '@tollgate/core/chain';
import {
  buildPaymentRequired,
  buildPaymentRequirements,
  decodePaymentSignatureHeader,
  encodeX402Header,
  FacilitatorUnavailableError,
  settlementOutcome,
  verifyExactPayment,
} from '@tollgate/core/x402';
import {
  createLocalFacilitator,
  devAccountKeys,
  startAnvil,
  startFacilitatorServer,
  testUsdcArtifact,
  type AnvilInstance,
  type DevChainSetup,
  type FacilitatorServer,
  type LocalFacilitator,
} from '@tollgate/gateway-server/devchain';
import { officialPayerClient, startFacilitatorStack, type FacilitatorStack } from '../devchain/helpers';

const MERCHANT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906' as const; // anvil dev account #3

let stack: FacilitatorStack;
let anvil: AnvilInstance;
let setup: DevChainSetup;
let local: LocalFacilitator;
let server: FacilitatorServer;
let chain: FacilitatorStack['chain'];
let network: GatewayNetwork;
let facilitator: Facilitator;
const payer = privateKeyToAccount(devAccountKeys.payer);
const now = () => Math.floor(Date.now() / 1000);

beforeAll(async () => {
  stack = await startFacilitatorStack();
  ({ anvil, setup, local, server, chain } = stack);
  network = {
    name: 'local',
    caip2: setup.network,
    chainId: setup.chainId,
    usdc: { address: setup.usdc.address, name: setup.usdc.domain.name, version: setup.usdc.domain.version, decimals: setup.usdc.decimals },
  };
  facilitator = createHttpFacilitator({ url: server.url, timeoutMs: { verify: 10_000, settle: 20_000 } });
});

afterAll(() => stack?.stop());

const requirements = (amount = '10000') => buildPaymentRequirements({ network, payTo: MERCHANT, amount, maxTimeoutSeconds: 120 });

/** The official client pays the PAYMENT-REQUIRED header Tollgate builds; the header goes through our decoder. */
async function pay(accepted: Readonly<PaymentRequirements> = requirements()): Promise<PaymentPayload> {
  const http = new x402HTTPClient(officialPayerClient(setup, payer));
  const header = encodeX402Header(buildPaymentRequired({ resource: { url: 'http://127.0.0.1/receive/x?ref=r1' }, accepts: [accepted] }));
  const required = http.getPaymentRequiredResponse((name) => (name === 'PAYMENT-REQUIRED' ? header : null));
  const payload = await http.createPaymentPayload(required);
  return decodePaymentSignatureHeader(http.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE']);
}

function evidenceFor(payload: PaymentPayload) {
  const { authorization } = payload.payload as { authorization: { from: `0x${string}`; to: `0x${string}`; value: string; nonce: `0x${string}` } };
  return findAuthorizationSettlement({
    client: chain, token: setup.usdc.address, authorizer: authorization.from, nonce: authorization.nonce, payTo: authorization.to, value: BigInt(authorization.value), maxBlockSpan: 100,
  });
}

describe('createHttpFacilitator against the self-hosted x402 facilitator', () => {
  it('reads /supported', async () => {
    expect(await facilitator.supported()).toEqual({
      kinds: [{ x402Version: 2, scheme: 'exact', network: setup.network }],
      extensions: [],
      signers: { 'eip155:*': [local.address] },
    });
  });

  it('verifies and settles a payment that verifyExactPayment accepted; a replay is a verdict, not an error', async () => {
    const accepted = requirements();
    const payload = await pay(accepted);
    expect(verifyExactPayment({ payload, expected: accepted, network, now: now() })).toMatchObject({ payer: payer.address, signatureStatus: 'verified' });
    expect(await facilitator.verify(payload, accepted)).toMatchObject({ isValid: true, payer: payer.address });

    const settled = await facilitator.settle(payload, accepted);
    const outcome = settlementOutcome(settled);
    expect(outcome).toMatchObject({ status: 'settled', payer: payer.address });
    const receipt = await chain.getTransactionReceipt({ hash: outcome.transaction as Hash });
    expect(parseEventLogs({ abi: testUsdcArtifact.abi, logs: receipt.logs, eventName: 'Transfer' })[0]?.args).toEqual({ from: payer.address, to: MERCHANT, value: 10_000n });

    expect(await facilitator.verify(payload, accepted)).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' });
    // A replayed settle answers "nonce already used" without a hash: after a settle call that is the chain's to
    // decide (this very payment executed), never a final failure.
    expect(settlementOutcome(await facilitator.settle(payload, accepted))).toMatchObject({ status: 'pending', errorReason: 'invalid_exact_evm_nonce_already_used', transaction: '' });
  });

  it('returns the facilitator’s refusals as verdicts: a forged amount, and a 400 for an unsupported network', async () => {
    const payload = await pay();
    expect(await facilitator.verify(payload, requirements('20000'))).toMatchObject({ isValid: false });
    const foreign = { ...requirements(), network: 'eip155:8453' as const };
    expect(await facilitator.verify(payload, foreign)).toMatchObject({ isValid: false, invalidReason: 'invalid_network' });
    expect(await facilitator.settle(payload, foreign)).toMatchObject({ success: false, errorReason: 'invalid_network', transaction: '' });
  });

  it('surfaces settlement_pending with the hash when the receipt wait runs out', async () => {
    const impatient = await createLocalFacilitator({ rpcUrl: anvil.rpcUrl, privateKey: setup.facilitator.privateKey, receiptTimeoutMs: 300 });
    const impatientServer = await startFacilitatorServer({ facilitator: impatient.facilitator });
    const payload = await pay();
    await chain.request({ method: 'evm_setAutomine', params: [false] } as never);
    try {
      const outcome = settlementOutcome(await createHttpFacilitator({ url: impatientServer.url }).settle(payload, requirements()));
      expect(outcome.status).toBe('pending');
      expect(outcome.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      await chain.request({ method: 'evm_mine', params: [] } as never);
      expect(await evidenceFor(payload)).toMatchObject({ status: 'settled', txHash: outcome.transaction });
    } finally {
      await chain.request({ method: 'evm_setAutomine', params: [true] } as never);
      await impatientServer.stop();
    }
  });

  it('times out a settle that hangs after broadcasting (retryable), while the chain has the transfer', async () => {
    let release: () => void = () => undefined;
    const hanging = await createLocalFacilitator({
      rpcUrl: anvil.rpcUrl,
      privateKey: setup.facilitator.privateKey,
      onTransactionBroadcast: () => new Promise<void>((resolve) => (release = resolve)),
    });
    const hangingServer = await startFacilitatorServer({ facilitator: hanging.facilitator });
    try {
      const payload = await pay();
      const attempt = createHttpFacilitator({ url: hangingServer.url, timeoutMs: { settle: 500 } }).settle(payload, requirements());
      await expect(attempt).rejects.toBeInstanceOf(FacilitatorUnavailableError);
      await expect(attempt).rejects.toMatchObject({ retryable: true, details: { operation: 'settle', reason: 'timeout' } });
      expect(await evidenceFor(payload)).toMatchObject({ status: 'settled', to: MERCHANT, value: 10_000n });
    } finally {
      release();
      await hangingServer.stop();
    }
  });

  it('reports a facilitator whose chain node is down as unavailable, with its retry-after', async () => {
    const doomed = await startAnvil();
    const orphan = await createLocalFacilitator({ rpcUrl: doomed.rpcUrl, privateKey: setup.facilitator.privateKey });
    const orphanServer = await startFacilitatorServer({ facilitator: orphan.facilitator });
    await doomed.stop();
    try {
      const attempt = createHttpFacilitator({ url: orphanServer.url }).verify(await pay(), requirements());
      await expect(attempt).rejects.toMatchObject({ name: 'FacilitatorUnavailableError', retryAfterSeconds: 5, details: { reason: 'unavailable_status', status: 503 } });
    } finally {
      await orphanServer.stop();
    }
  });
});
