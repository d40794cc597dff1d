import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { AdminApiError, AdminNetworkError, AdminTimeoutError } from '../src/errors';
import { maxRetryAfterSeconds, parseRetryAfter, retryDelayMs } from '../src/retry';
import { createTransport, type AdminClientOptions } from '../src/transport';

type Step = Response | Error | ((signal: AbortSignal) => Promise<Response>);

/** A fetch that answers from a script (a function step sees the attempt's signal). */
function scriptedFetch(...steps: Step[]) {
  const calls: Headers[] = [];
  const fetch = async (_input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    calls.push(new Headers(init.headers));
    const step = steps[calls.length - 1];
    if (step === undefined) throw new Error(`unexpected call #${calls.length}`);
    if (step instanceof Error) throw step;
    return typeof step === 'function' ? step(init.signal as AbortSignal) : step;
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

/** Never answers; rejects with the signal's reason when the attempt is aborted. */
const hang = (signal: AbortSignal) => new Promise<Response>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
const json = (status: number, body: unknown, headers: Record<string, string> = {}) => new Response(JSON.stringify(body), { status, headers });
const refusal = (status: number, code: string, headers: Record<string, string> = {}) => json(status, { ok: false, error: { code, message: code } }, headers);
const ok = () => json(200, { ok: true });
const read = { method: 'GET', path: '/licenses', kind: 'read', schema: v.looseObject({ ok: v.literal(true) }) } as const;

function transportWith(fetch: typeof globalThis.fetch, options: Partial<AdminClientOptions> = {}) {
  const sleeps: number[] = [];
  const transport = createTransport({ baseUrl: 'https://license.example.com', token: 't', fetch, ...options }, {
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    now: () => Date.parse('2030-01-01T00:00:00Z'),
  });
  return { transport, sleeps };
}

describe('admin transport: retries', () => {
  it('retries network errors, 429 and 503 with the same key, backing off with full jitter', async () => {
    const server = scriptedFetch(new TypeError('fetch failed'), refusal(429, 'rate_limited'), refusal(503, 'service_unavailable'), ok());
    const { transport, sleeps } = transportWith(server.fetch, { maxRetries: 3 });
    await expect(transport.request({ ...read, method: 'POST', kind: 'mutation' })).resolves.toMatchObject({ status: 200 });
    expect(server.calls).toHaveLength(4);
    expect(new Set(server.calls.map((headers) => headers.get('idempotency-key'))).size).toBe(1);
    // random() = 0.5 of the ceilings 500, 1000, 2000 ms.
    expect(sleeps).toEqual([250, 500, 1000]);
  });

  it('stops after maxRetries and reports the last failure', async () => {
    const server = scriptedFetch(new TypeError('a'), new TypeError('b'), new TypeError('c'));
    const { transport } = transportWith(server.fetch);
    const error = await transport.request(read).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdminNetworkError);
    expect((error as Error).cause).toMatchObject({ message: 'c' });
    expect(server.calls).toHaveLength(3);
    const busy = scriptedFetch(refusal(503, 'service_unavailable'));
    await expect(transportWith(busy.fetch, { maxRetries: 0 }).transport.request(read)).rejects.toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(busy.calls).toHaveLength(1);
  });

  it.each([
    [500, 'internal_error'],
    [502, 'http_502'],
    [504, 'http_504'],
    [400, 'invalid_request'],
    [401, 'invalid_token'],
    [408, 'request_timeout'],
    [409, 'idempotency_conflict'],
  ])('does not retry a %i', async (status, code) => {
    const server = scriptedFetch(code.startsWith('http_') ? new Response('gateway', { status }) : refusal(status, code), ok());
    await expect(transportWith(server.fetch).transport.request(read)).rejects.toMatchObject({ code, status });
    expect(server.calls).toHaveLength(1);
  });

  it('waits what Retry-After says, in seconds or as an HTTP date', async () => {
    const server = scriptedFetch(refusal(429, 'rate_limited', { 'retry-after': '3' }), refusal(503, 'service_unavailable', { 'retry-after': 'Tue, 01 Jan 2030 00:00:12 GMT' }), ok());
    const { transport, sleeps } = transportWith(server.fetch);
    await transport.request(read);
    expect(sleeps).toEqual([3000, 12_000]);
  });

  it(`gives up at once when Retry-After exceeds ${maxRetryAfterSeconds} s, carrying it on the error`, async () => {
    const server = scriptedFetch(refusal(503, 'service_unavailable', { 'retry-after': '3600' }), ok());
    const { transport, sleeps } = transportWith(server.fetch);
    const error = await transport.request(read).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdminApiError);
    expect(error).toMatchObject({ code: 'service_unavailable', retryAfterSeconds: 3600 });
    expect(sleeps).toEqual([]);
    expect(server.calls).toHaveLength(1);
  });

  it('times out a silent attempt with AdminTimeoutError and retries it like a network error', async () => {
    const server = scriptedFetch(hang, ok());
    const { transport } = transportWith(server.fetch, { timeoutMs: 20 });
    await expect(transport.request(read)).resolves.toMatchObject({ status: 200 });
    const silent = scriptedFetch(hang, hang);
    const error = await transportWith(silent.fetch, { timeoutMs: 20, maxRetries: 1 }).transport.request(read).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdminTimeoutError);
    expect(error).toMatchObject({ code: 'timeout', timeoutMs: 20 });
    expect(silent.calls).toHaveLength(2);
  });

  it('times out a body that stalls after the headers', async () => {
    const stalled = (signal: AbortSignal) => {
      const body = new ReadableStream<Uint8Array>({ start: (controller) => signal.addEventListener('abort', () => controller.error(signal.reason)) });
      return Promise.resolve(new Response(body, { status: 200 }));
    };
    const server = scriptedFetch(stalled, ok());
    await expect(transportWith(server.fetch, { timeoutMs: 20 }).transport.request(read)).resolves.toMatchObject({ status: 200 });
    expect(server.calls).toHaveLength(2);
  });

  it('lets the caller’s signal abort the attempt in flight and the wait between attempts, without retrying', async () => {
    const caller = new AbortController();
    const server = scriptedFetch((signal) => {
      queueMicrotask(() => caller.abort(new Error('user pressed stop')));
      return hang(signal);
    });
    const { transport } = transportWith(server.fetch);
    await expect(transport.request({ ...read, options: { signal: caller.signal } })).rejects.toThrow('user pressed stop');
    expect(server.calls).toHaveLength(1);

    const waiting = new AbortController();
    const slow = scriptedFetch(refusal(503, 'service_unavailable', { 'retry-after': '30' }), ok());
    const real = createTransport({ baseUrl: 'https://license.example.com', token: 't', fetch: slow.fetch });
    const pending = real.request({ ...read, options: { signal: waiting.signal } });
    setTimeout(() => waiting.abort(new Error('gave up waiting')), 10);
    await expect(pending).rejects.toThrow('gave up waiting');
    expect(slow.calls).toHaveLength(1);

    const already = scriptedFetch(ok());
    await expect(transportWith(already.fetch).transport.request({ ...read, options: { signal: AbortSignal.abort(new Error('before')) } })).rejects.toThrow('before');
    expect(already.calls).toHaveLength(0);
  });

  it('parses Retry-After forms and computes capped full-jitter delays', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter(' 5 ', now)).toBe(5);
    expect(parseRetryAfter('Mon, 31 Dec 2029 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-3', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(retryDelayMs(0, undefined, () => 0.999)).toBe(499);
    expect(retryDelayMs(10, undefined, () => 0.999)).toBe(7992);
    expect(retryDelayMs(0, undefined, () => 0)).toBe(0);
    expect(retryDelayMs(0, 60, () => 0.5)).toBe(60_000);
    expect(retryDelayMs(0, 61, () => 0.5)).toBeUndefined();
  });
});
