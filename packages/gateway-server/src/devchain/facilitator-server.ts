import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseJsonWithUniqueKeys, quoteJsonKey } from '@tollgate/core';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import { FacilitatorRpcError } from './facilitator-signer';
import { checkFacilitatorCall, type FacilitatorCall, type FacilitatorCallRefusal, type SupportedKinds } from './facilitator-request';

/** The part of `x402Facilitator` the server needs (an official `x402Facilitator` satisfies it). */
export interface FacilitatorBackend {
  verify(paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements): Promise<VerifyResponse>;
  settle(paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements): Promise<SettleResponse>;
  getSupported(): SupportedKinds | Promise<SupportedKinds>;
}

/** Lets a {@link FacilitatorServerOptions.beforeSettleResponse} hook simulate a facilitator that dies. */
export interface SettleResponseControl {
  /** Destroys the connection: the caller gets no answer although settlement already happened. */
  dropConnection(): void;
}

/** Options of {@link startFacilitatorServer}. */
export interface FacilitatorServerOptions {
  /** The facilitator to serve, e.g. `createLocalFacilitator(...).facilitator`. */
  facilitator: FacilitatorBackend;
  /** Port; default a free one. */
  port?: number;
  /** Interface; default `127.0.0.1`. */
  host?: string;
  /** Largest accepted request body. Default 64 KiB. */
  maxBodyBytes?: number;
  /**
   * Fault-injection point for tests, run after settlement and before the answer is written. It may
   * return a replacement response, hang, or call `control.dropConnection()`. Leave unset normally.
   */
  beforeSettleResponse?: (result: SettleResponse, control: SettleResponseControl) => SettleResponse | void | Promise<SettleResponse | void>;
  /** Receives failures of the facilitator (answered with 503 or 500), e.g. for logging. */
  onError?: (error: unknown) => void;
}

/** A listening facilitator server. */
export interface FacilitatorServer {
  /** Base URL for `HTTPFacilitatorClient({ url })`, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  readonly port: number;
  /** Stops listening and destroys open connections (also ones a hook keeps hanging). */
  stop(): Promise<void>;
}

type Json = Record<string, unknown>;
type Answer = { status: number; body: Json; headers?: Record<string, string> };

function errorAnswer(status: number, code: string, message: string, headers?: Record<string, string>): Answer {
  return { status, body: { error: { code, message } }, ...(headers ? { headers } : {}) };
}

const routes: Record<string, 'GET' | 'POST'> = { '/verify': 'POST', '/settle': 'POST', '/supported': 'GET' };

class BodyTooLarge extends Error {}

/**
 * Reads the body as text. An oversized body is drained and discarded rather than cut off, so the
 * client still receives the 413 answer on an intact connection.
 */
async function readBody(request: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(request.headers['content-length']);
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number.isFinite(declared) && declared > limit;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (!tooLarge) chunks.push(chunk);
    });
    request.on('end', () => (tooLarge ? reject(new BodyTooLarge()) : resolveBody(Buffer.concat(chunks).toString('utf8'))));
    request.on('error', reject);
  });
}

function paymentRefusal(path: string, refusal: Extract<FacilitatorCallRefusal, { kind: 'payment' }>): Answer {
  const body: Json =
    path === '/verify'
      ? { isValid: false, invalidReason: refusal.reason, invalidMessage: refusal.message }
      : { success: false, errorReason: refusal.reason, errorMessage: refusal.message, transaction: '', network: refusal.network };
  return { status: 400, body };
}

/**
 * Serves a facilitator over HTTP in the x402 v2 facilitator wire format, so `HTTPFacilitatorClient`
 * (and Tollgate's own facilitator client) can use it:
 *
 * - `POST /verify`, `POST /settle` with `{ x402Version, paymentPayload, paymentRequirements }` →
 *   200 with the facilitator's `VerifyResponse` / `SettleResponse` (also when invalid or failed).
 * - `GET /supported` → 200 `SupportedResponse`.
 *
 * Bad input never yields a 5xx: a body that is not JSON → 400 `malformed_body`; a wrong envelope →
 * 400 `malformed_request`; wrong content type → 415; over `maxBodyBytes` → 413; unknown path → 404;
 * wrong method → 405 (all `{ error: { code, message } }`). A well-formed envelope with an invalid
 * payment (unsupported scheme/network, malformed authorization, wrong version) → 400 with an x402
 * VerifyResponse / SettleResponse carrying the reason. An unreachable chain node
 * (`FacilitatorRpcError`) → 503 `rpc_unavailable`; any other failure of the facilitator → 500
 * `internal_error` (message generic, the error goes to `onError`).
 *
 * @param options - The facilitator, listen address, body limit and test hooks.
 * @returns The listening server.
 * @example
 * ```ts
 * import { HTTPFacilitatorClient } from '@x402/core/server';
 * import { createLocalFacilitator, startFacilitatorServer } from '@tollgate/gateway-server/devchain';
 * const server = await startFacilitatorServer({ facilitator: (await createLocalFacilitator({ rpcUrl, privateKey })).facilitator });
 * const client = new HTTPFacilitatorClient({ url: server.url });
 * console.log(await client.getSupported());
 * ```
 */
export async function startFacilitatorServer(options: FacilitatorServerOptions): Promise<FacilitatorServer> {
  const { facilitator } = options;
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024;

  async function handlePayment(path: string, call: FacilitatorCall, response: ServerResponse): Promise<Answer | undefined> {
    if (path === '/verify') {
      const result = await facilitator.verify(call.paymentPayload, call.paymentRequirements);
      return { status: 200, body: result as unknown as Json };
    }
    let result = await facilitator.settle(call.paymentPayload, call.paymentRequirements);
    let dropped = false;
    if (options.beforeSettleResponse) {
      const replacement = await options.beforeSettleResponse(result, {
        dropConnection: () => {
          dropped = true;
          response.socket?.destroy();
        },
      });
      if (replacement) result = replacement;
    }
    return dropped ? undefined : { status: 200, body: result as unknown as Json };
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<Answer | undefined> {
    const path = new URL(request.url ?? '/', 'http://facilitator').pathname.replace(/\/+$/, '') || '/';
    const method = routes[path];
    if (!method) return errorAnswer(404, 'not_found', `No route ${path}; use POST /verify, POST /settle or GET /supported.`);
    if (request.method !== method) return errorAnswer(405, 'method_not_allowed', `${path} accepts ${method} only.`, { allow: method });
    if (method === 'GET') return { status: 200, body: (await facilitator.getSupported()) as unknown as Json };

    const contentType = String(request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (contentType !== 'application/json') return errorAnswer(415, 'unsupported_media_type', 'Send the body as application/json.');
    let text: string;
    try {
      text = await readBody(request, maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) return errorAnswer(413, 'payload_too_large', `The body exceeds ${maxBodyBytes} bytes.`);
      throw error;
    }
    // Duplicate keys are refused as everywhere else: a payload must mean one thing to every parser.
    const parsed = parseJsonWithUniqueKeys(text);
    if (!parsed.ok) {
      return errorAnswer(400, 'malformed_body', parsed.reason === 'duplicate_key' ? `The body names the key ${quoteJsonKey(parsed.key)} twice.` : 'The body is not valid JSON.');
    }
    const checked = checkFacilitatorCall(parsed.value, await facilitator.getSupported());
    if ('refusal' in checked) {
      const { refusal } = checked;
      return refusal.kind === 'request' ? errorAnswer(400, refusal.code, refusal.message) : paymentRefusal(path, refusal);
    }
    return handlePayment(path, checked, response);
  }

  const server = createServer((request, response) => {
    route(request, response)
      .catch((error: unknown) => {
        options.onError?.(error);
        return error instanceof FacilitatorRpcError
          ? errorAnswer(503, 'rpc_unavailable', 'The facilitator could not reach its chain node; retry later.', { 'retry-after': '5' })
          : errorAnswer(500, 'internal_error', 'The facilitator failed unexpectedly.');
      })
      .then((answer) => {
        if (!answer || response.destroyed) return;
        const payload = JSON.stringify(answer.body);
        response.writeHead(answer.status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...answer.headers });
        response.end(payload);
      })
      .catch((error: unknown) => options.onError?.(error));
  });

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolveListen());
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const host = options.host ?? '127.0.0.1';
  let stopping: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    stop() {
      stopping ??= new Promise<void>((resolveClose) => {
        server.close(() => resolveClose());
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}
