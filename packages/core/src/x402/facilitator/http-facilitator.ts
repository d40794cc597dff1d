import * as v from 'valibot';
import { issuePath, settleResponseSchema, supportedResponseSchema, verifyResponseSchema } from '../wire';
import type { PaymentPayload, PaymentRequirements, SettleResponse, SupportedResponse, VerifyResponse } from '../wire';
import { FacilitatorProtocolError, FacilitatorUnavailableError, type FacilitatorOperation } from './errors';
import type { Facilitator } from './port';

/** Options of {@link createHttpFacilitator}. */
export interface HttpFacilitatorOptions {
  /**
   * Base URL; `/verify`, `/settle` and `/supported` are appended to its path (trailing slashes are
   * ignored), and its query string is kept on every call (`https://f.example/x402?key=abc` →
   * `https://f.example/x402/verify?key=abc`).
   */
  url: string;
  /** Headers sent with every call (e.g. an API key). Never logged by Tollgate. */
  headers?: Record<string, string>;
  /**
   * Per-call headers, e.g. a short-lived JWT for a hosted facilitator; merged over `headers`. Errors it
   * throws propagate unchanged.
   */
  createHeaders?: (operation: FacilitatorOperation) => Record<string, string> | Promise<Record<string, string>>;
  /**
   * Deadlines per call, covering connect, response and body. Defaults: verify 10 000, settle 60 000
   * (settle waits for the transaction receipt), supported 10 000.
   */
  timeoutMs?: { verify?: number; settle?: number; supported?: number };
  /** Largest accepted response body. Default 64 KiB. */
  maxResponseBytes?: number;
  /** The fetch to use (default `globalThis.fetch`), e.g. one with a proxy agent. */
  fetch?: typeof fetch;
}

type Raw = { status: number; text: string; retryAfterSeconds: number | undefined };

class ResponseTooLarge extends Error {}

/** Reads a response body up to `limit` bytes without buffering more than that. */
async function readBody(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new ResponseTooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function retryAfter(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  return value !== null && /^[0-9]{1,6}$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

const isUnavailableStatus = (status: number) => status >= 500 || status === 408 || status === 429;

/**
 * Creates a {@link Facilitator} that speaks the x402 v2 facilitator HTTP API: `POST {url}/verify` and
 * `POST {url}/settle` with `{ x402Version: 2, paymentPayload, paymentRequirements }`, `GET
 * {url}/supported`. Every answer is schema-checked. How answers map:
 *
 * | answer | result |
 * |---|---|
 * | 2xx with a valid `VerifyResponse`/`SettleResponse`/`SupportedResponse` | resolved (also `isValid: false` / `success: false`) |
 * | 4xx (not 408/429) carrying a negative verdict (some facilitators answer 400 with it) | resolved verdict |
 * | 5xx/408/429, timeout, connection failure | `FacilitatorUnavailableError` (retryable), except a settle answer that carries a transaction hash, which is resolved so the hash is never lost |
 * | anything else: not JSON, wrong shape, `success: true` without a transaction, body over the cap, other 4xx | `FacilitatorProtocolError` |
 *
 * @param options - URL, headers, timeouts, response cap and fetch.
 * @returns The facilitator.
 * @throws TypeError when `url` is not an http(s) URL.
 *
 * @example
 * ```ts
 * import { createHttpFacilitator } from '@tollgate/core';
 * import { settlementOutcome } from '@tollgate/core/x402';
 * const facilitator = createHttpFacilitator({ url: config.FACILITATOR_URL, timeoutMs: { verify: 5_000, settle: 45_000 } });
 * const outcome = settlementOutcome(await facilitator.settle(payload, accepted));
 * ```
 */
export function createHttpFacilitator(options: HttpFacilitatorOptions): Facilitator {
  let base: URL;
  try {
    base = new URL(options.url);
  } catch {
    throw new TypeError(`The facilitator URL is not a URL: ${String(options.url)}.`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError('The facilitator URL must be http(s).');
  const basePath = base.pathname.replace(/\/+$/, '');
  /** The operation's URL: appended to the base path, the base's query (often a provider key) kept. */
  const operationUrl = (operation: FacilitatorOperation): string => {
    const target = new URL(base.href);
    target.pathname = `${basePath}/${operation}`;
    target.hash = '';
    return target.href;
  };
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const maxBytes = options.maxResponseBytes ?? 64 * 1024;
  const timeouts = { verify: 10_000, settle: 60_000, supported: 10_000, ...options.timeoutMs };

  async function call(operation: FacilitatorOperation, body?: unknown): Promise<Raw> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers, ...(await options.createHeaders?.(operation)) };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeouts[operation]);
    try {
      const response = await fetchImpl(operationUrl(operation), {
        method: body === undefined ? 'GET' : 'POST',
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
      });
      const text = await readBody(response, maxBytes);
      return { status: response.status, text, retryAfterSeconds: retryAfter(response.headers) };
    } catch (cause) {
      // (A fetch with its own cap, such as `createKeepAliveFetch`, rejects with ResponseBodyTooLargeError.)
      if (cause instanceof ResponseTooLarge || (cause instanceof Error && cause.name === 'ResponseBodyTooLargeError')) throw new FacilitatorProtocolError(operation, 'too_large');
      throw new FacilitatorUnavailableError(operation, timedOut ? 'timeout' : 'network', { cause });
    } finally {
      clearTimeout(timer);
    }
  }

  function interpret<Schema extends v.GenericSchema>(operation: FacilitatorOperation, raw: Raw, schema: Schema, isNegativeVerdict: (value: v.InferOutput<Schema>) => boolean): v.InferOutput<Schema> {
    const json = parseJson(raw.text);
    const parsed = json.ok ? v.safeParse(schema, json.value) : undefined;
    const ok = raw.status >= 200 && raw.status < 300;
    if (ok) {
      if (!json.ok) throw new FacilitatorProtocolError(operation, 'not_json', { status: raw.status });
      if (!parsed?.success) throw new FacilitatorProtocolError(operation, 'invalid_shape', { status: raw.status, field: parsed ? issuePath(parsed.issues) : '' });
      return parsed.output;
    }
    const verdict = parsed?.success ? parsed.output : undefined;
    if (isUnavailableStatus(raw.status)) {
      // A settle that broadcast must never lose its hash, whatever status carried it.
      const carriesHash = operation === 'settle' && verdict !== undefined && (verdict as SettleResponse).transaction !== '';
      if (carriesHash) return verdict;
      throw new FacilitatorUnavailableError(operation, 'unavailable_status', { status: raw.status, retryAfterSeconds: raw.retryAfterSeconds });
    }
    if (raw.status >= 400 && raw.status < 500 && verdict !== undefined && isNegativeVerdict(verdict)) return verdict;
    throw new FacilitatorProtocolError(operation, 'unexpected_status', { status: raw.status });
  }

  const envelope = (payload: PaymentPayload, requirements: Readonly<PaymentRequirements>) => ({
    x402Version: 2,
    paymentPayload: payload,
    paymentRequirements: requirements,
  });

  return {
    async verify(payload, requirements): Promise<VerifyResponse> {
      const raw = await call('verify', envelope(payload, requirements));
      return interpret('verify', raw, verifyResponseSchema, (verdict) => !verdict.isValid) as VerifyResponse;
    },
    async settle(payload, requirements): Promise<SettleResponse> {
      const raw = await call('settle', envelope(payload, requirements));
      const result = interpret('settle', raw, settleResponseSchema, (verdict) => !verdict.success) as SettleResponse;
      if (result.success && result.transaction === '') throw new FacilitatorProtocolError('settle', 'invalid_shape', { status: raw.status, field: 'transaction' });
      return result;
    },
    async supported(): Promise<SupportedResponse> {
      const raw = await call('supported');
      return interpret('supported', raw, supportedResponseSchema, () => false) as SupportedResponse;
    },
  };
}
