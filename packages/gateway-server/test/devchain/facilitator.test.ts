import { x402HTTPClient } from '@x402/core/client';
import { decodePaymentSignatureHeader } from '@x402/core/http';
import { HTTPFacilitatorClient, FacilitatorTimeoutError } from '@x402/core/server';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { parseEventLogs, type Hash } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAuthorizationSettlement } from '@tollgate/core/chain';
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
import { officialPayerClient, startFacilitatorStack, type FacilitatorStack } from './helpers';

const MERCHANT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906' as const; // anvil dev account #3

let stack: FacilitatorStack;
let anvil: AnvilInstance;
let setup: DevChainSetup;
let local: LocalFacilitator;
let server: FacilitatorServer;
let client: FacilitatorStack['chain'];
let facilitatorClient: HTTPFacilitatorClient;
const payer = privateKeyToAccount(devAccountKeys.payer);

beforeAll(async () => {
  stack = await startFacilitatorStack();
  ({ anvil, setup, local, server, chain: client } = stack);
  facilitatorClient = new HTTPFacilitatorClient({ url: server.url });
});

afterAll(() => stack?.stop());

function requirements(amount = '10000'): PaymentRequirements {
  return {
    scheme: 'exact',
    network: setup.network,
    amount,
    asset: setup.usdc.address,
    payTo: MERCHANT,
    maxTimeoutSeconds: 120,
    extra: { name: setup.usdc.domain.name, version: setup.usdc.domain.version },
  };
}

/** A payment built by the official x402 client, allowed to spend our (non-default) asset. */
async function pay(accepted = requirements()): Promise<PaymentPayload> {
  const payerClient = officialPayerClient(setup, payer);
  const payload = await payerClient.createPaymentPayload({ x402Version: 2, resource: { url: 'http://127.0.0.1/paid', description: 'test', mimeType: 'application/json' }, accepts: [accepted] });
  // Round-trip through the PAYMENT-SIGNATURE header as a resource server would receive it.
  const header = new x402HTTPClient(payerClient).encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE'];
  return decodePaymentSignatureHeader(header as string);
}

const balanceOf = (account: `0x${string}`) => client.readContract({ address: setup.usdc.address, abi: testUsdcArtifact.abi, functionName: 'balanceOf', args: [account] });

async function post(path: string, body: string, contentType = 'application/json', baseUrl = server.url) {
  const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function evidenceFor(payload: PaymentPayload, fromBlock = 0n) {
  const { authorization } = payload.payload as { authorization: { from: `0x${string}`; to: `0x${string}`; value: string; nonce: `0x${string}` } };
  return findAuthorizationSettlement({
    client, token: setup.usdc.address, authorizer: authorization.from, nonce: authorization.nonce, payTo: authorization.to, value: BigInt(authorization.value), fromBlock, maxBlockSpan: 100,
  });
}

describe('self-hosted facilitator over HTTP', () => {
  it('lists eip155:31337 and its settlement account under /supported', async () => {
    const supported = await facilitatorClient.getSupported();
    expect(supported.kinds).toEqual([{ x402Version: 2, scheme: 'exact', network: 'eip155:31337' }]);
    expect(supported.signers).toEqual({ 'eip155:*': [local.address] });
  });

  it('verifies and settles an official x402 v2 payment; the facilitator pays the gas', async () => {
    const payload = await pay();
    const before = await balanceOf(MERCHANT);
    expect(await facilitatorClient.verify(payload, requirements())).toMatchObject({ isValid: true, payer: payer.address });
    const settled = await facilitatorClient.settle(payload, requirements());
    expect(settled).toMatchObject({ success: true, network: 'eip155:31337', payer: payer.address });
    const receipt = await client.getTransactionReceipt({ hash: settled.transaction as Hash });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(local.address.toLowerCase());
    expect(parseEventLogs({ abi: testUsdcArtifact.abi, logs: receipt.logs, eventName: 'Transfer' })[0]?.args).toEqual({ from: payer.address, to: MERCHANT, value: 10_000n });
    expect(await balanceOf(MERCHANT)).toBe(before + 10_000n);
    expect(await client.getBalance({ address: payer.address })).toBe(0n);

    // Replay: verify diagnoses the used nonce through Multicall3; settle maps USDC's revert string.
    expect(await facilitatorClient.verify(payload, requirements())).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' });
    expect(await facilitatorClient.settle(payload, requirements())).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_nonce_already_used', transaction: '' });
  });

  it('settles concurrent payments from one facilitator account without nonce collisions', async () => {
    const payloads = await Promise.all([pay(), pay(), pay(), pay()]);
    const results = await Promise.all(payloads.map((payload) => facilitatorClient.settle(payload, requirements())));
    expect(results.map((r) => r.success)).toEqual([true, true, true, true]);
    expect(new Set(results.map((r) => r.transaction)).size).toBe(4);
  });

  it('broadcasts one transfer for two concurrent settles of one verified payment; the duplicate burns no gas', async () => {
    const payload = await pay();
    expect(await facilitatorClient.verify(payload, requirements())).toMatchObject({ isValid: true });
    const before = await client.getTransactionCount({ address: local.address });
    const results = await Promise.all([facilitatorClient.settle(payload, requirements()), facilitatorClient.settle(payload, requirements())]);
    expect(results.filter((result) => result.success)).toHaveLength(1);
    // The duplicate is refused before broadcast: no transaction, so no second nonce spent.
    expect(results.find((result) => !result.success)).toMatchObject({ success: false, transaction: '' });
    expect(await client.getTransactionCount({ address: local.address })).toBe(before + 1);
  });

  it('reports insufficient balance and a mismatched amount as invalid, not as errors', async () => {
    const tooMuch = requirements(String((await balanceOf(payer.address)) + 1n));
    expect(await facilitatorClient.verify(await pay(tooMuch), tooMuch)).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_insufficient_balance' });
    const payload = await pay();
    expect(await facilitatorClient.verify(payload, requirements('20000'))).toMatchObject({ isValid: false });
  });

  it('answers bad input with 4xx JSON, never 5xx', async () => {
    const payload = await pay();
    const envelope = (overrides: Record<string, unknown> = {}) => JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements(), ...overrides });
    expect(await post('/verify', '{"x402Version": 2,')).toEqual({ status: 400, body: { error: { code: 'malformed_body', message: 'The body is not valid JSON.' } } });
    expect(await post('/settle', 'not json')).toMatchObject({ status: 400, body: { error: { code: 'malformed_body' } } });
    // Two values for one key would mean different payments to different parsers: refused, never settled.
    const twice = envelope().replace('{"x402Version":2,', '{"x402Version":2,"x402Version":2,');
    expect(await post('/settle', twice)).toEqual({ status: 400, body: { error: { code: 'malformed_body', message: 'The body names the key "x402Version" twice.' } } });
    expect(await post('/verify', '[1,2]')).toMatchObject({ status: 400, body: { error: { code: 'malformed_request' } } });
    expect(await post('/verify', JSON.stringify({ x402Version: 2, paymentPayload: payload }))).toMatchObject({ status: 400, body: { error: { code: 'malformed_request' } } });
    expect(await post('/verify', envelope(), 'text/plain')).toMatchObject({ status: 415, body: { error: { code: 'unsupported_media_type' } } });
    expect(await post('/verify', JSON.stringify({ pad: 'x'.repeat(70_000) }))).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
    // Without a content-length (chunked), the limit is enforced while reading.
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(8_192)));
        controller.close();
      },
    });
    const streamed = await fetch(`${server.url}/settle`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chunked, duplex: 'half' } as RequestInit);
    expect([streamed.status, await streamed.json()]).toMatchObject([413, { error: { code: 'payload_too_large' } }]);
    expect(await post('/nope', envelope())).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    const getVerify = await fetch(`${server.url}/verify`);
    expect([getVerify.status, getVerify.headers.get('allow')]).toEqual([405, 'POST']);

    const invalid = async (path: string, overrides: Record<string, unknown>) => {
      const { status, body } = await post(path, envelope(overrides));
      expect({ status, body }).toMatchObject({ status: 400 });
      return path === '/verify' ? body.invalidReason : body.errorReason;
    };
    expect(await invalid('/verify', { x402Version: 1 })).toBe('invalid_x402_version');
    expect(await invalid('/verify', { paymentRequirements: { ...requirements(), network: 'eip155:8453' } })).toBe('invalid_network');
    expect(await invalid('/settle', { paymentRequirements: { ...requirements(), scheme: 'upto' } })).toBe('unsupported_scheme');
    expect(await invalid('/verify', { paymentRequirements: { ...requirements(), asset: 'usdc' } })).toBe('invalid_payment_requirements');
    expect(await invalid('/verify', { paymentRequirements: { scheme: 'exact' } })).toBe('invalid_payment_requirements');
    expect(await invalid('/verify', { paymentPayload: { ...payload, accepted: 'x' } })).toBe('invalid_payload');
    const badNonce = { ...payload, payload: { ...payload.payload, authorization: { ...(payload.payload.authorization as object), nonce: '0x12' } } };
    expect(await invalid('/settle', { paymentPayload: badNonce })).toBe('invalid_payload');
    const badValue = { ...payload, payload: { ...payload.payload, authorization: { ...(payload.payload.authorization as object), value: '1e5' } } };
    expect(await invalid('/verify', { paymentPayload: badValue })).toBe('invalid_payload');
    const hugeValue = { ...payload, payload: { ...payload.payload, authorization: { ...(payload.payload.authorization as object), value: (1n << 256n).toString() } } };
    expect(await invalid('/verify', { paymentPayload: hugeValue })).toBe('invalid_payload');
    expect(await invalid('/verify', { paymentPayload: { ...payload, payload: { permit2Authorization: {} } } })).toBe('unsupported_payload_type');

    // The official client surfaces the 400 as a VerifyError carrying the reason.
    await expect(facilitatorClient.verify(payload, { ...requirements(), network: 'eip155:1' })).rejects.toMatchObject({ statusCode: 400, invalidReason: 'invalid_network' });
  });

  it('settles on chain even when the facilitator dies before answering', async () => {
    const dying = await startFacilitatorServer({ facilitator: local.facilitator, beforeSettleResponse: (_result, control) => control.dropConnection() });
    try {
      const payload = await pay();
      await expect(new HTTPFacilitatorClient({ url: dying.url }).settle(payload, requirements())).rejects.toThrow();
      expect(await evidenceFor(payload)).toMatchObject({ status: 'settled', to: MERCHANT, value: 10_000n });
    } finally {
      await dying.stop();
    }
  });

  it('leaves evidence when settle hangs after broadcasting', async () => {
    let release: () => void = () => undefined;
    const broadcast: Hash[] = [];
    const hanging = await createLocalFacilitator({
      rpcUrl: anvil.rpcUrl, privateKey: setup.facilitator.privateKey,
      onTransactionBroadcast: (hash) => {
        broadcast.push(hash);
        return new Promise<void>((resolve) => { release = resolve; });
      },
    });
    const hangingServer = await startFacilitatorServer({ facilitator: hanging.facilitator });
    try {
      const payload = await pay();
      await expect(new HTTPFacilitatorClient({ url: hangingServer.url, timeoutMs: 400 }).settle(payload, requirements())).rejects.toBeInstanceOf(FacilitatorTimeoutError);
      expect(await evidenceFor(payload)).toMatchObject({ status: 'settled', txHash: broadcast[0] });
    } finally {
      release();
      await hangingServer.stop();
    }
  });

  it('answers settlement_pending with the hash when the receipt does not come in time', async () => {
    const impatient = await createLocalFacilitator({ rpcUrl: anvil.rpcUrl, privateKey: setup.facilitator.privateKey, receiptTimeoutMs: 300 });
    const payload = await pay();
    await client.request({ method: 'evm_setAutomine', params: [false] } as never);
    try {
      const pending = await impatient.facilitator.settle(payload, requirements());
      expect(pending).toMatchObject({ success: false, errorReason: 'settlement_pending' });
      expect(pending.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await evidenceFor(payload)).toEqual({ status: 'not_found' });
      await client.request({ method: 'evm_mine', params: [] } as never);
      expect(await evidenceFor(payload)).toMatchObject({ status: 'settled', txHash: pending.transaction });
    } finally {
      await client.request({ method: 'evm_setAutomine', params: [true] } as never);
    }
  });

  it('answers 503 rpc_unavailable when its chain node is down', async () => {
    const doomed = await startAnvil();
    const errors: unknown[] = [];
    const orphan = await createLocalFacilitator({ rpcUrl: doomed.rpcUrl, privateKey: setup.facilitator.privateKey });
    const orphanServer = await startFacilitatorServer({ facilitator: orphan.facilitator, onError: (e) => errors.push(e) });
    await doomed.stop();
    try {
      const payload = await pay();
      const body = JSON.stringify({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements() });
      for (const path of ['/verify', '/settle']) {
        expect(await post(path, body, 'application/json', orphanServer.url)).toMatchObject({ status: 503, body: { error: { code: 'rpc_unavailable' } } });
      }
      expect(errors).toHaveLength(2);
    } finally {
      await orphanServer.stop();
    }
  });

  it('answers other facilitator failures with a generic 500', async () => {
    const aborting = await createLocalFacilitator({ rpcUrl: anvil.rpcUrl, privateKey: setup.facilitator.privateKey });
    aborting.official.onBeforeSettle(async () => ({ abort: true, reason: 'maintenance' }));
    const errors: unknown[] = [];
    const abortingServer = await startFacilitatorServer({ facilitator: aborting.facilitator, onError: (e) => errors.push(e) });
    try {
      const body = JSON.stringify({ x402Version: 2, paymentPayload: await pay(), paymentRequirements: requirements() });
      expect(await post('/settle', body, 'application/json', abortingServer.url)).toEqual({
        status: 500,
        body: { error: { code: 'internal_error', message: 'The facilitator failed unexpectedly.' } },
      });
      expect(String(errors[0])).toContain('Settlement aborted: maintenance');
    } finally {
      await abortingServer.stop();
    }
  });
});
