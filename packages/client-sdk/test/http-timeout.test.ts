// Every client-protocol request runs under a deadline (F11): a fetch that never settles, or an answer
// whose body never ends, becomes `network_error` (the life cycle's "unreachable", so grace applies) and
// no timer is left behind. And a 200 that is no signed envelope (a proxy's HTML page) is
// `unexpected_response`, not a refusal (F13).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createNobleEd25519Signer, ManualClock } from '@tollgate/core';
import { encodeLicenseMessage } from '@tollgate/core/license';
import { classifyFailure, createKeysetFetcher, LicenseRequestError, login, relayOfflineRequest, validate, type ArtifactVerifier, type FetchFunction } from '@tollgate/client-sdk';

afterEach(() => {
  vi.useRealTimers();
});

const baseUrl = 'https://license.example.com';
const credentials = { productId: 'acme-editor', email: 'ada@example.com', password: 'correct horse' };

/** A fetch that never answers; it remembers the signal it was given. */
function hangingFetch(): { fetch: FetchFunction; signals: (AbortSignal | undefined)[] } {
  const signals: (AbortSignal | undefined)[] = [];
  return {
    signals,
    fetch: (_input, init) => {
      signals.push(init?.signal ?? undefined);
      return new Promise<Response>(() => undefined);
    },
  };
}

/** What a call threw, for assertions on the error itself. */
async function failureOf(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (error) {
    return error;
  }
  throw new Error('the call succeeded');
}

describe('request deadline', () => {
  it('turns a fetch that never settles into network_error, which the life cycle treats as unreachable', async () => {
    const { fetch, signals } = hangingFetch();
    const error = await failureOf(login({ baseUrl, fetch, requestTimeoutMs: 20 }, credentials));
    expect(error).toBeInstanceOf(LicenseRequestError);
    expect(error).toMatchObject({ code: 'network_error' });
    expect(classifyFailure(error)).toEqual({ kind: 'unreachable', retryAfterSeconds: undefined });
    // The fetch was told to give up too, so a real request does not linger.
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(true);
  });

  it('covers the answer body: headers then a body that never ends is network_error too', async () => {
    const stalled: FetchFunction = async () => new Response(new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => undefined) }), { status: 200 });
    const error = await failureOf(login({ baseUrl, fetch: stalled, requestTimeoutMs: 20 }, credentials));
    expect(error).toMatchObject({ code: 'network_error' });
    const refused: FetchFunction = async () => new Response(new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => undefined) }), { status: 401 });
    expect(await failureOf(login({ baseUrl, fetch: refused, requestTimeoutMs: 20 }, credentials))).toMatchObject({ code: 'network_error' });
  });

  it('gives a fetch that honours the signal the same outcome', async () => {
    const honouring: FetchFunction = (_input, init) =>
      new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    expect(await failureOf(login({ baseUrl, fetch: honouring, requestTimeoutMs: 20 }, credentials))).toMatchObject({ code: 'network_error' });
  });

  it('waits 30 s by default, on POST and GET alike, and leaves no timer behind when the answer comes', async () => {
    vi.useFakeTimers();
    const post = failureOf(login({ baseUrl, fetch: hangingFetch().fetch }, credentials));
    const get = failureOf(createKeysetFetcher({ baseUrl, pinnedRoots: [], fetch: hangingFetch().fetch, clock: new ManualClock(0) }).get());
    await vi.advanceTimersByTimeAsync(29_999);
    expect(vi.getTimerCount()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(await post).toMatchObject({ code: 'network_error' });
    expect(await get).toMatchObject({ code: 'network_error' });
    // An answer in time clears its timer (here: a CBOR error body, so the call still throws, with the server's code).
    const answered: FetchFunction = async () => new Response(encodeLicenseMessage('error-body', { code: 1000, message: 'wrong credentials' }) as BodyInit, { status: 401 });
    expect(await failureOf(login({ baseUrl, fetch: answered }, credentials))).toMatchObject({ code: 1000, status: 401 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('refuses a timeout setTimeout cannot honour, before sending anything', async () => {
    const { fetch, signals } = hangingFetch();
    for (const requestTimeoutMs of [0, -1, 1.5, 2 ** 31, Number.POSITIVE_INFINITY]) {
      await expect(login({ baseUrl, fetch, requestTimeoutMs }, credentials)).rejects.toThrow(TypeError);
    }
    expect(signals).toHaveLength(0);
  });
});

describe('a 200 that is no signed envelope', () => {
  it('is unexpected_response (grace side), not a refusal, for validate', async () => {
    const proxyPage: FetchFunction = async () => new Response('<html><body>Access through this proxy requires sign-in</body></html>', { status: 200, headers: { 'content-type': 'text/html' } });
    const verifier = { verify: () => Promise.reject(new Error('not reached: the body is no envelope')) } as unknown as ArtifactVerifier;
    const deviceKey = createNobleEd25519Signer({ privateKey: new Uint8Array(32).fill(1), kid: 'device' });
    const error = await failureOf(
      validate(
        { baseUrl, fetch: proxyPage, verifier },
        {
          productId: 'acme-editor',
          seat: { licenseId: new Uint8Array(16), machineId: new Uint8Array(16) },
          deviceKey,
          fingerprint: new Uint8Array(32),
          clientInfo: { appVersion: '1.0.0', sdkVersion: '0.1.0', os: 'linux', arch: 'x64' },
        },
      ),
    );
    expect(error).toBeInstanceOf(LicenseRequestError);
    expect(error).toMatchObject({ code: 'unexpected_response', status: 200 });
    expect(classifyFailure(error).kind).toBe('unreachable');
  });

  it('is unexpected_response when relaying an offline request, before the page reaches the air-gapped device', async () => {
    const proxyPage: FetchFunction = async () => new Response('<html>sign in</html>', { status: 200, headers: { 'content-type': 'text/html' } });
    const error = await failureOf(relayOfflineRequest({ baseUrl, fetch: proxyPage }, new Uint8Array([0xa0])));
    expect(error).toMatchObject({ code: 'unexpected_response', status: 200 });
  });
});
