/**
 * The Admin client's HTTP transport: URL and headers, idempotency keys, dry runs, retries with backoff,
 * per-attempt timeouts, the response-size cap, answer validation and typed errors. Only web-platform
 * APIs (`fetch`, streams, Web Crypto): it runs in Node, Deno and browsers.
 *
 * @module
 */
import * as v from 'valibot';
import { cappedLines, readCappedBytes, readCappedText, type AnswerContext } from './body-reader';
import { AdminApiError, AdminClientError, AdminNetworkError, AdminResponseError, AdminTimeoutError } from './errors';
import { createAdminList } from './pagination';
import { abortableSleep, isRetryableStatus, parseRetryAfter, retryDelayMs } from './retry';
import type { AdminBytesResponse, AdminRequest, AdminResponse, AdminTransport, DestructiveOptions } from './transport-types';

/** Options of `createAdminClient`. */
export interface AdminClientOptions {
  /** The license server's base URL (the client appends `/v1/admin/...`); a path prefix is kept. */
  readonly baseUrl: string;
  /** An Admin token (`Authorization: Bearer`). Never logged nor put in error messages. */
  readonly token: string;
  /** The `fetch` to use (default `globalThis.fetch`): inject one for proxies, tests or custom agents. */
  readonly fetch?: typeof fetch;
  /** Largest answer read, in bytes (default 16 MiB); beyond it the call fails with `response_too_large`. */
  readonly maxResponseBytes?: number;
  /** Per-attempt timeout in ms (default 30 s); for streamed exports, the longest wait for the next chunk. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt on network errors, timeouts, 429 and 503 (default 2). */
  readonly maxRetries?: number;
}

/**
 * Seams for tests and embedders: how to wait, the jitter source and the clock (for `Retry-After` dates).
 *
 * @internal
 */
export interface AdminTransportHooks {
  readonly sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  readonly random?: () => number;
  readonly now?: () => number;
}

/** Default `maxResponseBytes`: 16 MiB. */
export const defaultMaxResponseBytes = 16 * 1024 * 1024;
/** Default `timeoutMs`: 30 s. */
export const defaultTimeoutMs = 30_000;
/** Default `maxRetries`: 2 (three attempts at most). */
export const defaultMaxRetries = 2;

type BareRequest = Omit<AdminRequest<unknown>, 'schema'>;

/** One request ready to send: built once, so every retry sends the same key and body. */
interface PreparedRequest {
  readonly url: string;
  readonly init: RequestInit;
  readonly signal: AbortSignal | undefined;
}

/** The per-attempt abort controller: the caller's signal plus the (re-armable) timeout. */
class AttemptTimer {
  readonly controller = new AbortController();
  timedOut = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onCallerAbort: () => void;

  constructor(
    private readonly timeoutMs: number,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    this.onCallerAbort = () => this.controller.abort(callerSignal?.reason);
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.arm();
  }

  /** (Re)starts the countdown: once per attempt, and per chunk while streaming lines. */
  arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new AdminTimeoutError(this.timeoutMs));
    }, this.timeoutMs);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }
}

/** An open answer (status checked), handed to the reader of its kind. */
interface OpenAnswer {
  readonly response: Response;
  readonly context: AnswerContext;
  readonly timer: AttemptTimer;
}

function positiveInteger(name: string, value: number | undefined, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < (allowZero ? 0 : 1)) throw new RangeError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer.`);
  return value;
}

/** A fresh idempotency key: a random UUID (or 128 random bits in hex where `randomUUID` is missing, e.g. plain-HTTP pages). */
function generateIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function headersOf(response: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name.toLowerCase()] = value;
  });
  return headers;
}

const errorEnvelope = v.object({ ok: v.literal(false), error: v.looseObject({ code: v.pipe(v.string(), v.minLength(1)), message: v.string() }) });

/**
 * Builds the transport every resource group uses.
 *
 * @param options - Server URL, token, `fetch` and limits.
 * @param hooks - Test seams (sleep, jitter, clock); leave out in production.
 * @returns The transport.
 * @throws RangeError / TypeError for an invalid option.
 * @example
 * ```ts
 * const transport = createTransport({ baseUrl: 'https://license.example.com', token });
 * const { body } = await transport.request({ method: 'GET', path: '/epochs', kind: 'read', schema: v.looseObject({}) });
 * ```
 */
export function createTransport(options: AdminClientOptions, hooks: AdminTransportHooks = {}): AdminTransport {
  if (typeof options.token !== 'string' || options.token.length === 0) throw new TypeError('An Admin token is required.');
  const base = new URL(options.baseUrl);
  const prefix = `${base.origin}${base.pathname.replace(/\/+$/, '')}/v1/admin`;
  const maxResponseBytes = positiveInteger('maxResponseBytes', options.maxResponseBytes, defaultMaxResponseBytes);
  const timeoutMs = positiveInteger('timeoutMs', options.timeoutMs, defaultTimeoutMs);
  const maxRetries = positiveInteger('maxRetries', options.maxRetries, defaultMaxRetries, true);
  // Looked up per call and never called detached: browsers refuse a `fetch` called without its `this`.
  const fetchFunction: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const sleep = hooks.sleep ?? abortableSleep;
  const random = hooks.random ?? Math.random;
  const now = hooks.now ?? Date.now;

  function prepare(request: BareRequest, accept: string): PreparedRequest {
    const callOptions = (request.options ?? {}) as DestructiveOptions;
    const url = new URL(`${prefix}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    // Destructive calls preview unless explicitly confirmed.
    if (request.kind === 'destructive') url.searchParams.set('dry_run', callOptions.dryRun === false ? 'false' : 'true');
    // Built once per call, before any attempt: a bad header value fails here instead of looking like a network error.
    const headers = new Headers({ authorization: `Bearer ${options.token}`, accept });
    // One key per call, reused by every retry below: the server then applies the call at most once.
    if (request.kind !== 'read') headers.set('idempotency-key', callOptions.idempotencyKey ?? generateIdempotencyKey());
    let body: BodyInit | undefined;
    if (request.rawBody !== undefined) {
      headers.set('content-type', request.contentType ?? 'application/octet-stream');
      // A copy backed by a plain ArrayBuffer, which every fetch accepts as a body.
      body = new Uint8Array(request.rawBody);
    } else if (request.body !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(request.body);
    }
    return { url: url.toString(), init: { method: request.method, headers, ...(body === undefined ? {} : { body }) }, signal: callOptions.signal };
  }

  /** The error of a non-2xx answer: the server's envelope code, or `http_<status>` without one. */
  async function apiErrorOf(answer: OpenAnswer): Promise<AdminApiError> {
    const { response, context } = answer;
    const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'), now());
    const text = await readCappedText(response, maxResponseBytes, context);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const envelope = v.safeParse(errorEnvelope, parsed);
    if (envelope.success) return new AdminApiError(envelope.output.error.code, context.status, envelope.output.error.message, context.requestId, retryAfterSeconds);
    const snippet = text.slice(0, 200).trim();
    const message = `HTTP ${context.status}${response.statusText ? ` ${response.statusText}` : ''}${snippet ? `: ${snippet}` : ''}`;
    return new AdminApiError(`http_${context.status}`, context.status, message, context.requestId, retryAfterSeconds);
  }

  /** Turns what an attempt threw into the error to report, and whether another attempt may fix it. */
  function classify(error: unknown, timer: AttemptTimer, signal: AbortSignal | undefined): { error: unknown; retryable: boolean; retryAfterSeconds?: number } {
    if (signal?.aborted) return { error: signal.reason, retryable: false };
    if (timer.timedOut) return { error: new AdminTimeoutError(timeoutMs), retryable: true };
    if (error instanceof AdminApiError) return { error, retryable: isRetryableStatus(error.status), ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }) };
    if (error instanceof AdminClientError) return { error, retryable: false };
    // Reads are safe to repeat, and mutations carry the same key on every attempt.
    return { error: new AdminNetworkError('The connection to the license server failed.', { cause: error }), retryable: true };
  }

  /**
   * Runs attempts until one gives a 2xx answer that `consume` accepts, retrying network errors,
   * timeouts, 429 and 503 up to `maxRetries`. With `keepOpen`, the successful attempt's timer stays
   * armed for the caller (streams), who must dispose of it.
   */
  async function withRetries<R>(prepared: PreparedRequest, consume: (answer: OpenAnswer) => Promise<R>, keepOpen = false): Promise<R> {
    for (let attempt = 0; ; attempt += 1) {
      // An already-aborted call sends nothing (a fetch would reject too, but only after building the request).
      prepared.signal?.throwIfAborted();
      const timer = new AttemptTimer(timeoutMs, prepared.signal);
      let handedOver = false;
      try {
        const response = await fetchFunction(prepared.url, { ...prepared.init, signal: timer.controller.signal });
        const answer: OpenAnswer = { response, timer, context: { status: response.status, requestId: response.headers.get('x-request-id') ?? undefined } };
        if (!response.ok) throw await apiErrorOf(answer);
        const result = await consume(answer);
        handedOver = keepOpen;
        return result;
      } catch (error) {
        const failure = classify(error, timer, prepared.signal);
        const delay = failure.retryable && attempt < maxRetries ? retryDelayMs(attempt, failure.retryAfterSeconds, random) : undefined;
        if (delay === undefined) throw failure.error;
        await sleep(delay, prepared.signal);
      } finally {
        if (!handedOver) timer.dispose();
      }
    }
  }

  async function request<T>(request: AdminRequest<T>): Promise<AdminResponse<T>> {
    return withRetries(prepare(request, 'application/json'), async ({ response, context }) => {
      const text = await readCappedText(response, maxResponseBytes, context);
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        throw new AdminResponseError('invalid_response', `${request.method} ${request.path} answered ${context.status} with a body that is not JSON.`, context.status, context.requestId);
      }
      const result = v.safeParse(request.schema, parsed);
      if (!result.success) {
        const issue = result.issues[0];
        const path = v.getDotPath(issue) ?? '(root)';
        throw new AdminResponseError('invalid_response', `${request.method} ${request.path} answered an unexpected shape at ${path}: ${issue.message}`, context.status, context.requestId);
      }
      return { status: context.status, body: result.output, headers: headersOf(response), requestId: context.requestId };
    });
  }

  async function requestBytes(request: BareRequest): Promise<AdminBytesResponse> {
    return withRetries(prepare(request, 'application/octet-stream, application/json;q=0.9'), async ({ response, context }) => ({
      status: context.status,
      bytes: await readCappedBytes(response, maxResponseBytes, context),
      headers: headersOf(response),
      requestId: context.requestId,
    }));
  }

  async function* requestLines(request: BareRequest): AsyncGenerator<string> {
    const prepared = prepare(request, 'application/x-ndjson, text/csv, application/json;q=0.9');
    // Retried only until the answer starts: once lines were handed out, repeating the request would repeat them.
    const { response, context, timer } = await withRetries(prepared, async (answer) => answer, true);
    try {
      // The timeout becomes an idle timeout: a long export is fine as long as chunks keep coming.
      yield* cappedLines(response, maxResponseBytes, context, () => timer.arm());
    } catch (error) {
      throw classify(error, timer, prepared.signal).error;
    } finally {
      timer.dispose();
    }
  }

  return {
    request,
    requestBytes,
    requestLines,
    list: (listRequest) => createAdminList(request, listRequest),
  };
}
