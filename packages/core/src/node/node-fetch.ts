import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** Options of {@link createKeepAliveFetch}. */
export interface KeepAliveFetchOptions {
  /** Sockets kept per origin (default 16). */
  readonly maxSockets?: number;
  /** Largest response body read, in bytes (default 8 MiB); a longer one fails the call. */
  readonly maxResponseBytes?: number;
}

/** A `fetch` for the calls a server makes on its hot paths, plus a way to close its sockets. */
export interface KeepAliveFetch {
  (input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** Closes every kept-alive socket (at shutdown). */
  close(): void;
}

/** Thrown (as the `fetch` rejection) when a response body exceeds `maxResponseBytes`. */
export class ResponseBodyTooLargeError extends Error {
  override readonly name = 'ResponseBodyTooLargeError';
}

const idleSocketMs = 4_000;
const idempotentMethods = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const nullBodyStatuses = new Set([204, 205, 304]);

/** A kept-alive socket failed before any answer: the request did not reach the server. */
class StaleSocketError extends Error {
  constructor(override readonly cause: Error) {
    super('The kept-alive socket was closed by the server.');
  }
}

function headerRecord(headers: HeadersInit | undefined): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  if (headers === undefined) return out;
  if (headers instanceof Headers || Array.isArray(headers)) {
    for (const [name, value] of headers instanceof Headers ? headers.entries() : headers) out[name!.toLowerCase()] = value;
  } else {
    for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  }
  return out;
}

function requestBody(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError('createKeepAliveFetch sends string, Uint8Array or ArrayBuffer bodies only.');
}

function responseHeaders(message: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = message.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) headers.append(raw[index]!, raw[index + 1]!);
  return headers;
}

/**
 * A `fetch` over `node:http`/`node:https` with kept-alive sockets, for a server's own outbound calls on
 * hot paths (facilitator verify/settle, JSON-RPC reads). Why: Node's built-in `fetch` costs about 1 ms of
 * CPU per call on this project's benchmark machine (WHATWG streams, per-request signal plumbing), three
 * times a plain `http.request`; a settlement makes six to eight such calls. It implements what those
 * callers use: method, headers, a string or byte body, `signal` (aborting destroys the socket and
 * rejects with the signal's reason), and a `Response` whose whole body has been read (at most
 * `maxResponseBytes`). Idle sockets are closed after 4 s; a request that meets a kept-alive socket the
 * server has just closed is sent again once when its method is idempotent (never a POST). Redirects are
 * not followed (`redirect` is ignored: the callers never expect one), and no proxy or TLS option beyond
 * Node's defaults applies.
 *
 * @param options - Socket pool size and response cap.
 * @returns The fetch; call `close()` at shutdown.
 * @example
 * ```ts
 * import { createKeepAliveFetch } from '@tollgate/core/node';
 * import { createHttpFacilitator } from '@tollgate/core';
 * const fetch = createKeepAliveFetch();
 * const facilitator = createHttpFacilitator({ url: 'https://facilitator.example', fetch });
 * ```
 */
export function createKeepAliveFetch(options: KeepAliveFetchOptions = {}): KeepAliveFetch {
  const maxSockets = options.maxSockets ?? 16;
  const maxBytes = options.maxResponseBytes ?? 8 * 1024 * 1024;
  // An idle kept-alive socket is closed after 4 s, before common servers' 5 s keep-alive timeouts close it
  // from their side (a request written to a socket the server is closing fails with ECONNRESET).
  const agentOptions = { keepAlive: true, maxSockets, timeout: idleSocketMs };
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };

  const keepAliveFetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    if (input instanceof Request) {
      // A Request carries its own method, headers and body; `init` still overrides them, as in fetch.
      const body = init.body ?? (input.body === null ? undefined : new Uint8Array(await input.arrayBuffer()));
      return send(new URL(input.url), { method: input.method, headers: input.headers, signal: input.signal, ...init, body });
    }
    return send(typeof input === 'string' ? new URL(input) : input, init);
  };

  const send = async (url: URL, init: RequestInit): Promise<Response> => {
    try {
      return await sendOnce(url, init);
    } catch (error) {
      // A kept-alive socket the server closed just as the request went out: the request never reached
      // it. Resent once, but only for methods that are safe to repeat (a POST may have been processed).
      if (!(error instanceof StaleSocketError)) throw error;
      if (!idempotentMethods.has((init.method ?? 'GET').toUpperCase())) throw error.cause;
      return sendOnce(url, init);
    }
  };

  const sendOnce = (url: URL, init: RequestInit): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const secure = url.protocol === 'https:';
      if (!secure && url.protocol !== 'http:') {
        reject(new TypeError(`createKeepAliveFetch fetches http(s) URLs only, not ${url.protocol}`));
        return;
      }
      const signal = init.signal ?? undefined;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const body = requestBody(init.body);
      const headers = headerRecord(init.headers);
      if (body !== undefined) headers['content-length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
      const request = (secure ? httpsRequest : httpRequest)(url, { method: init.method ?? 'GET', headers, agent: secure ? agents.https : agents.http });
      const onAbort = (): void => {
        request.destroy();
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle = (outcome: () => void): void => {
        signal?.removeEventListener('abort', onAbort);
        outcome();
      };
      let responded = false;
      request.on('error', (error: NodeJS.ErrnoException) =>
        settle(() => reject(request.reusedSocket && !responded && (error.code === 'ECONNRESET' || error.code === 'EPIPE') ? new StaleSocketError(error) : error)),
      );
      request.on('response', (message) => {
        responded = true;
        const chunks: Buffer[] = [];
        let size = 0;
        message.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            request.destroy();
            settle(() => reject(new ResponseBodyTooLargeError(`The response body exceeds ${maxBytes} bytes.`)));
            return;
          }
          chunks.push(chunk);
        });
        message.on('error', (error) => settle(() => reject(error)));
        message.on('end', () => {
          if (size > maxBytes) return;
          const status = message.statusCode ?? 0;
          if (status < 200 || status > 599) {
            settle(() => reject(new TypeError(`The server answered an invalid HTTP status (${status}).`)));
            return;
          }
          // Statuses that carry no body by definition cannot be given one.
          const content = nullBodyStatuses.has(status) || chunks.length === 0 ? null : Buffer.concat(chunks, size);
          settle(() => {
            // Anything the Response constructor refuses (a header it will not take) rejects the call instead
            // of throwing out of this event handler.
            try {
              resolve(new Response(content, { status, statusText: message.statusMessage ?? '', headers: responseHeaders(message) }));
            } catch (error) {
              reject(error);
            }
          });
        });
      });
      request.end(body);
    });

  return Object.assign(keepAliveFetch, {
    close(): void {
      agents.http.destroy();
      agents.https.destroy();
    },
  });
}
