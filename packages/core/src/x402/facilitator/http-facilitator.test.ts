import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderGatewayError } from '../../errors';
import { createKeepAliveFetch } from '../../node/node-fetch';
import {
  createHttpFacilitator,
  FacilitatorProtocolError,
  FacilitatorUnavailableError,
  settlementOutcome,
  payloadOnlyFailureReasons,
  type PaymentPayload,
  type PaymentRequirements,
} from '../index';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

let server: Server;
let url: string;
let handler: Handler;
const seen: { method?: string; path?: string; headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      seen.push({ method: request.method, path: request.url, headers: request.headers, body });
      handler(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  seen.length = 0;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const json = (status: number, value: unknown, headers: Record<string, string> = {}): Handler => (_request, _body, response) => {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(typeof value === 'string' ? value : JSON.stringify(value));
};

const requirements: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:8453',
  amount: '10000',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
  maxTimeoutSeconds: 300,
  extra: { name: 'USD Coin', version: '2' },
};
const payload: PaymentPayload = { x402Version: 2, accepted: requirements, payload: { signature: '0x01', authorization: {} } };
const txHash = `0x${'ab'.repeat(32)}`;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('createHttpFacilitator: requests', () => {
  it('posts { x402Version: 2, paymentPayload, paymentRequirements } as JSON with static and per-call headers', async () => {
    handler = json(200, { isValid: true, payer: '0xabc' });
    const facilitator = createHttpFacilitator({
      url: `${url}/facilitator/`,
      headers: { 'x-api-key': 'static', authorization: 'Bearer static' },
      createHeaders: (operation) => ({ authorization: `Bearer ${operation}-token` }),
    });
    expect(await facilitator.verify(payload, requirements)).toEqual({ isValid: true, payer: '0xabc' });
    const [request] = seen;
    expect(request).toMatchObject({ method: 'POST', path: '/facilitator/verify' });
    expect(request?.headers).toMatchObject({ 'content-type': 'application/json', accept: 'application/json', 'x-api-key': 'static', authorization: 'Bearer verify-token' });
    expect(JSON.parse(request?.body ?? '')).toEqual({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements });
  });

  it('appends the operation to the base path and keeps the base URL’s query string', async () => {
    handler = json(200, { isValid: true });
    const facilitator = createHttpFacilitator({ url: `${url}/x402/?key=abc&tier=1` });
    await facilitator.verify(payload, requirements);
    handler = json(200, { success: true, transaction: txHash, network: 'eip155:8453' });
    await facilitator.settle(payload, requirements);
    handler = json(200, { kinds: [] });
    await facilitator.supported();
    expect(seen.map((request) => request.path)).toEqual(['/x402/verify?key=abc&tier=1', '/x402/settle?key=abc&tier=1', '/x402/supported?key=abc&tier=1']);
  });

  it('lets errors of createHeaders through unchanged, before any request', async () => {
    const failure = new Error('token service down');
    const facilitator = createHttpFacilitator({ url, createHeaders: () => Promise.reject(failure) });
    expect(await rejection(facilitator.settle(payload, requirements))).toBe(failure);
    expect(seen).toHaveLength(0);
  });

  it('gets /supported and fills in missing extensions and signers', async () => {
    handler = json(200, { kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:8453' }] });
    const supported = await createHttpFacilitator({ url }).supported();
    expect(supported).toEqual({ kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:8453' }], extensions: [], signers: {} });
    expect(seen[0]).toMatchObject({ method: 'GET', path: '/supported' });
  });

  it('refuses a URL that is not http(s)', () => {
    expect(() => createHttpFacilitator({ url: 'ftp://x' })).toThrow(TypeError);
    expect(() => createHttpFacilitator({ url: 'not a url' })).toThrow(TypeError);
  });
});

describe('createHttpFacilitator: verdicts are data', () => {
  it('returns isValid: false and success: false from 200 answers', async () => {
    handler = json(200, { isValid: false, invalidReason: 'invalid_exact_evm_signature', payer: '0xabc' });
    expect(await createHttpFacilitator({ url }).verify(payload, requirements)).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_signature' });
    handler = json(200, { success: false, errorReason: 'insufficient_funds', transaction: '', network: 'eip155:8453' });
    expect(await createHttpFacilitator({ url }).settle(payload, requirements)).toMatchObject({ success: false, errorReason: 'insufficient_funds' });
  });

  it('returns a negative verdict carried by a 400', async () => {
    handler = json(400, { isValid: false, invalidReason: 'invalid_network' });
    expect(await createHttpFacilitator({ url }).verify(payload, requirements)).toMatchObject({ isValid: false, invalidReason: 'invalid_network' });
    handler = json(400, { success: false, errorReason: 'unsupported_scheme', transaction: '', network: 'eip155:8453' });
    expect(await createHttpFacilitator({ url }).settle(payload, requirements)).toMatchObject({ success: false, errorReason: 'unsupported_scheme' });
  });

  it('surfaces settlement_pending with its hash, even on a 5xx', async () => {
    const pending = { success: false, errorReason: 'settlement_pending', transaction: txHash, network: 'eip155:8453' };
    handler = json(200, pending);
    expect(settlementOutcome(await createHttpFacilitator({ url }).settle(payload, requirements))).toEqual({ status: 'pending', transaction: txHash, errorReason: 'settlement_pending' });
    handler = json(504, pending);
    expect(await createHttpFacilitator({ url }).settle(payload, requirements)).toMatchObject({ errorReason: 'settlement_pending', transaction: txHash });
  });
});

describe('createHttpFacilitator: no verdict', () => {
  it('times out a facilitator that never answers (retryable)', async () => {
    handler = () => undefined; // hang
    const error = await rejection(createHttpFacilitator({ url, timeoutMs: { verify: 150 } }).verify(payload, requirements));
    expect(error).toBeInstanceOf(FacilitatorUnavailableError);
    expect(error).toMatchObject({ code: 'facilitator_unavailable', retryable: true, details: { operation: 'verify', reason: 'timeout' } });
  });

  it('times out a body that stops halfway', async () => {
    handler = (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"success":');
    };
    const error = await rejection(createHttpFacilitator({ url, timeoutMs: { settle: 150 } }).settle(payload, requirements));
    expect(error).toMatchObject({ name: 'FacilitatorUnavailableError', details: { operation: 'settle', reason: 'timeout' } });
  });

  it('maps 500, 503 with retry-after, 408 and 429 to FacilitatorUnavailableError', async () => {
    for (const [status, headers, retryAfterSeconds] of [[500, {}, 5], [503, { 'retry-after': '17' }, 17], [408, {}, 5], [429, { 'retry-after': '2' }, 2]] as const) {
      handler = json(status, { error: { code: 'internal_error' } }, headers);
      const error = await rejection(createHttpFacilitator({ url }).verify(payload, requirements));
      expect(error).toBeInstanceOf(FacilitatorUnavailableError);
      expect(error).toMatchObject({ retryAfterSeconds, details: { reason: 'unavailable_status', status } });
    }
    // Rendered for the payer as a temporary refusal that keeps the facilitator's retry-after.
    handler = json(503, {}, { 'retry-after': '17' });
    expect(renderGatewayError(await rejection(createHttpFacilitator({ url }).verify(payload, requirements)))).toMatchObject({
      status: 503,
      headers: { 'retry-after': '17' },
      body: { error: { code: 'facilitator_unavailable' } },
    });
    // A 5xx settle without a hash carries nothing to keep.
    handler = json(500, { success: false, errorReason: 'unexpected_settle_error', transaction: '', network: 'eip155:8453' });
    expect(await rejection(createHttpFacilitator({ url }).settle(payload, requirements))).toBeInstanceOf(FacilitatorUnavailableError);
  });

  it('maps a refused connection to FacilitatorUnavailableError (network)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await rejection(createHttpFacilitator({ url: `http://127.0.0.1:${port}` }).supported());
    expect(error).toMatchObject({ name: 'FacilitatorUnavailableError', details: { operation: 'supported', reason: 'network' } });
  });
});

describe('createHttpFacilitator: malformed answers', () => {
  it('refuses bodies that are not JSON or not the x402 shape', async () => {
    const cases: [string | object, string, string | undefined][] = [
      ['<html>bad gateway</html>', 'not_json', undefined],
      [{ valid: true }, 'invalid_shape', 'isValid'],
      [{ isValid: 'yes' }, 'invalid_shape', 'isValid'],
      [[], 'invalid_shape', 'isValid'],
    ];
    for (const [body, failure, field] of cases) {
      handler = json(200, body);
      const error = await rejection(createHttpFacilitator({ url }).verify(payload, requirements));
      expect(error).toBeInstanceOf(FacilitatorProtocolError);
      expect(error).toMatchObject({ retryable: false, details: { operation: 'verify', failure, ...(field ? { field } : {}) } });
    }
  });

  it('refuses success without a transaction and a settle answer without network', async () => {
    handler = json(200, { success: true, transaction: '', network: 'eip155:8453' });
    expect(await rejection(createHttpFacilitator({ url }).settle(payload, requirements))).toMatchObject({ name: 'FacilitatorProtocolError', details: { field: 'transaction' } });
    handler = json(200, { success: true, transaction: txHash });
    expect(await rejection(createHttpFacilitator({ url }).settle(payload, requirements))).toMatchObject({ details: { failure: 'invalid_shape', field: 'network' } });
  });

  it('refuses a 4xx without a verdict (e.g. wrong credentials) and a positive verdict on a 4xx', async () => {
    handler = json(401, { error: 'unauthorized' });
    expect(await rejection(createHttpFacilitator({ url }).verify(payload, requirements))).toMatchObject({ name: 'FacilitatorProtocolError', details: { failure: 'unexpected_status', status: 401 } });
    handler = json(400, { isValid: true });
    expect(await rejection(createHttpFacilitator({ url }).verify(payload, requirements))).toBeInstanceOf(FacilitatorProtocolError);
  });

  it('refuses a body over the size cap', async () => {
    handler = json(200, { isValid: true, pad: 'x'.repeat(2_000) });
    const error = await rejection(createHttpFacilitator({ url, maxResponseBytes: 1_000 }).verify(payload, requirements));
    expect(error).toMatchObject({ name: 'FacilitatorProtocolError', details: { failure: 'too_large' } });
    // Also when the fetch itself enforces a smaller cap (the servers' kept-alive fetch does).
    const fetch = createKeepAliveFetch({ maxResponseBytes: 500 });
    try {
      const capped = await rejection(createHttpFacilitator({ url, fetch }).verify(payload, requirements));
      expect(capped).toMatchObject({ name: 'FacilitatorProtocolError', details: { failure: 'too_large' } });
    } finally {
      fetch.close();
    }
  });
});

describe('settlementOutcome', () => {
  it('tells settled, pending and failed apart', () => {
    expect(settlementOutcome({ success: true, transaction: txHash, network: 'eip155:8453', payer: '0xp' })).toEqual({ status: 'settled', transaction: txHash, payer: '0xp' });
    expect(settlementOutcome({ success: false, errorReason: 'settlement_pending', transaction: '', network: 'eip155:8453' })).toEqual({ status: 'pending', transaction: '', errorReason: 'settlement_pending' });
    expect(settlementOutcome({ success: false, errorReason: 'invalid_exact_evm_recipient_mismatch', errorMessage: 'wrong payee', transaction: '', network: 'eip155:8453' })).toEqual({
      status: 'failed',
      errorReason: 'invalid_exact_evm_recipient_mismatch',
      errorMessage: 'wrong payee',
      transaction: '',
    });
  });

  it('keeps every hash-less failure pending unless it refuses the payload itself: after settle, only the chain can tell', () => {
    // @x402/evm 2.27 answers this with no hash when sending throws, also after the node accepted the transaction.
    expect(settlementOutcome({ success: false, errorReason: 'invalid_exact_evm_transaction_failed', transaction: '', network: 'eip155:8453' })).toEqual({
      status: 'pending',
      transaction: '',
      errorReason: 'invalid_exact_evm_transaction_failed',
    });
    // Balance and nonce verdicts depend on chain state: someone may have executed this very authorization.
    for (const errorReason of ['invalid_exact_evm_insufficient_balance', 'invalid_exact_evm_nonce_already_used', 'invalid_exact_evm_payload_authorization_valid_before', 'a_reason_of_another_facilitator']) {
      expect(settlementOutcome({ success: false, errorReason, transaction: '', network: 'eip155:8453' })).toMatchObject({ status: 'pending', errorReason });
    }
    expect(settlementOutcome({ success: false, transaction: '', network: 'eip155:8453' })).toMatchObject({ status: 'pending', errorReason: 'unexpected_settle_error' });
    for (const errorReason of payloadOnlyFailureReasons) {
      expect(settlementOutcome({ success: false, errorReason, transaction: '', network: 'eip155:8453' })).toMatchObject({ status: 'failed', errorReason });
    }
  });

  it('keeps any failure that carries a transaction hash pending: only the chain can tell whether it lands', () => {
    // @x402/evm 2.27 answers a broadcast still unconfirmed with this reason and the hash.
    expect(settlementOutcome({ success: false, errorReason: 'invalid_exact_evm_transaction_state', transaction: txHash, network: 'eip155:8453', payer: '0xp' })).toEqual({
      status: 'pending',
      transaction: txHash,
      errorReason: 'invalid_exact_evm_transaction_state',
      payer: '0xp',
    });
    expect(settlementOutcome({ success: false, errorReason: 'invalid_exact_evm_transaction_failed', transaction: txHash, network: 'eip155:8453' })).toMatchObject({ status: 'pending', transaction: txHash });
    expect(settlementOutcome({ success: false, transaction: txHash, network: 'eip155:8453' })).toMatchObject({ status: 'pending', errorReason: 'unexpected_settle_error' });
  });
});
