import { lookup as systemLookup } from 'node:dns/promises';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { rootCertificates } from 'node:tls';
import { NotificationTransportError, type NotificationRequest, type NotificationResponse, type NotificationTransport } from '../webhooks/notification-transport';
import { checkNotificationUrl, notificationAddressAllowed, type NotificationUrlPolicy } from '../webhooks/notification-url';

/** One address of a host name, as `dns.lookup(host, { all: true })` returns it. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/** Resolves a host name to all of its addresses (the transport checks every one of them). */
export type NotificationResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** Options of {@link createNodeNotificationTransport}. */
export interface NodeNotificationTransportOptions extends NotificationUrlPolicy {
  /** Deadline for resolving the name and opening the connection (TCP and TLS), in ms. Default 5 000. */
  readonly connectTimeoutMs?: number;
  /** Response bytes read at most; the rest is discarded by closing the connection. Default 64 KiB. */
  readonly maxResponseBytes?: number;
  /**
   * Name resolution. Default: the system resolver (`dns.lookup` with `all: true`, so `/etc/hosts` and
   * the OS configuration apply, exactly what a plain `https.request` would have used).
   */
  readonly resolve?: NotificationResolver;
  /** Extra trusted CA certificates (PEM), added to Node's bundled roots: a private PKI, or tests. */
  readonly ca?: string | readonly string[];
}

const systemResolver: NotificationResolver = (hostname) => systemLookup(hostname, { all: true, verbatim: true });

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown error';
}

function aborted(host: string): NotificationTransportError {
  return new NotificationTransportError('aborted', `The notification to ${host} was aborted.`);
}

function deadline<T>(work: Promise<T>, ms: number, signal: AbortSignal | undefined, onTimeout: () => Error, onAbort: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => settle(() => reject(onTimeout())), Math.max(0, ms));
    const abort = () => settle(() => reject(onAbort()));
    signal?.addEventListener('abort', abort, { once: true });
    let settled = false;
    function settle(action: () => void): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      action();
    }
    work.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}

/**
 * Resolves `host` (unless it is an IP literal) and checks every answer: one non-public address among
 * public ones refuses the whole name, because which one a connection would use is not ours to choose.
 */
async function verifiedAddress(host: string, resolve: NotificationResolver, policy: NotificationUrlPolicy, budgetMs: number, signal: AbortSignal | undefined): Promise<ResolvedAddress> {
  let answers: readonly ResolvedAddress[];
  if (isIP(host) !== 0) {
    answers = [{ address: host, family: isIP(host) }];
  } else {
    try {
      answers = await deadline(
        resolve(host),
        budgetMs,
        signal,
        () => new NotificationTransportError('dns_failure', `${host} did not resolve within ${budgetMs} ms.`),
        () => aborted(host),
      );
    } catch (error) {
      if (error instanceof NotificationTransportError) throw error;
      throw new NotificationTransportError('dns_failure', `${host} did not resolve (${errorCode(error)}).`, { cause: error });
    }
  }
  if (answers.length === 0) throw new NotificationTransportError('dns_failure', `${host} resolved to no address.`);
  for (const answer of answers) {
    const verdict = notificationAddressAllowed(answer.address, policy);
    if (!verdict.allowed) {
      throw new NotificationTransportError('non_public_address', `${host} resolves to a non-public address (${verdict.kind.replace('_', '-')}); notifications go to public addresses only.`, {
        details: { addressKind: verdict.kind },
      });
    }
  }
  const first = answers[0] as ResolvedAddress;
  return { address: first.address, family: isIP(first.address) };
}

/** A `lookup` for `http(s).request` that always answers the verified address, whatever name it is asked. */
function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (error: Error | null, address: unknown, family?: number) => void) => {
    if (options.all === true) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  }) as unknown as LookupFunction;
}

interface Exchange {
  readonly url: URL;
  readonly host: string;
  readonly pinned: ResolvedAddress;
  readonly request: NotificationRequest;
  readonly connectBudgetMs: number;
  readonly totalBudgetMs: number;
  readonly maxResponseBytes: number;
  readonly ca: string[] | undefined;
}

function send(exchange: Exchange): Promise<NotificationResponse> {
  const { url, host, pinned, request } = exchange;
  const secure = url.protocol === 'https:';
  const body = new TextEncoder().encode(request.body);
  return new Promise<NotificationResponse>((resolve, reject) => {
    let status: number | undefined;
    let finished = false;
    const timers: ReturnType<typeof setTimeout>[] = [];
    const onAbort = () => finish(aborted(host));
    const finish = (outcome: NotificationResponse | NotificationTransportError): void => {
      if (finished) return;
      finished = true;
      timers.forEach(clearTimeout);
      request.signal?.removeEventListener('abort', onAbort);
      // Also closes the connection when the response is larger than we read.
      req.destroy();
      if (outcome instanceof NotificationTransportError) reject(outcome);
      else resolve(outcome);
    };
    // Once the receiver answered, its status is the outcome even if the rest of the exchange fails.
    const fail = (error: NotificationTransportError): void => finish(status === undefined ? error : { status });

    const req: ClientRequest = (secure ? httpsRequest : httpRequest)({
      protocol: url.protocol,
      hostname: host,
      port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...request.headers, 'content-length': String(body.byteLength) },
      agent: false,
      lookup: pinnedLookup(pinned),
      // SNI and certificate checks use the name, not the pinned address (no SNI for IP literals).
      ...(secure && isIP(host) === 0 ? { servername: host } : {}),
      ...(secure && exchange.ca !== undefined ? { ca: exchange.ca } : {}),
    });
    req.on('error', (error) => fail(new NotificationTransportError('connection_failed', `The connection to ${host} failed (${errorCode(error)}).`, { cause: error })));
    req.on('socket', (socket: Socket) => {
      socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    });
    req.on('response', (response: IncomingMessage) => {
      status = response.statusCode ?? 0;
      let read = 0;
      response.on('data', (chunk: Uint8Array) => {
        read += chunk.byteLength;
        if (read >= exchange.maxResponseBytes) finish({ status: status as number });
      });
      response.on('end', () => finish({ status: status as number }));
      response.on('error', () => finish({ status: status as number }));
      response.on('close', () => finish({ status: status as number }));
    });
    const connectTimer = setTimeout(
      () => fail(new NotificationTransportError('connect_timeout', `No connection to ${host} within the connect deadline.`)),
      Math.max(0, exchange.connectBudgetMs),
    );
    timers.push(connectTimer);
    timers.push(setTimeout(() => fail(new NotificationTransportError('timeout', `${host} did not answer within ${request.timeoutMs} ms.`)), Math.max(0, exchange.totalBudgetMs)));
    if (request.signal?.aborted === true) return onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    req.end(body);
  });
}

/**
 * The Node {@link NotificationTransport} (see its contract): SSRF-safe delivery of signed merchant
 * notifications.
 *
 * - Checks the URL (`checkNotificationUrl`), then resolves the host with `dns.lookup(host, { all: true })`
 *   and refuses when **any** address is not public (`notificationAddressAllowed`): loopback, RFC 1918,
 *   link-local (cloud metadata), CGNAT, ULA, IPv4-mapped and the other special ranges.
 * - Connects to the verified address only: `http(s).request` gets a `lookup` that answers that address,
 *   so no second DNS answer can rebind the connection to an internal host. `Host` and TLS SNI stay the
 *   host name, and the certificate is checked against it.
 * - Never follows redirects, reads at most `maxResponseBytes` of the answer, opens a fresh connection
 *   per request (no pooling across destinations), and honours the connect deadline, the request's
 *   `timeoutMs` (both counted from the start of `post`, DNS included) and its abort signal.
 *
 * @param options - Deadlines, response cap, resolver, extra CAs, and the test-only loopback policy.
 * @returns The transport.
 * @example
 * ```ts
 * import { createNotificationDeliverer } from '@tollgate/core';
 * import { createNodeNotificationTransport } from '@tollgate/core/node';
 * const transport = createNodeNotificationTransport({ connectTimeoutMs: 5_000 });
 * const deliverer = createNotificationDeliverer({ store, keys, clock, transport });
 * ```
 */
export function createNodeNotificationTransport(options: NodeNotificationTransportOptions = {}): NotificationTransport {
  const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
  const maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
  const resolve = options.resolve ?? systemResolver;
  const policy: NotificationUrlPolicy = options.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {};
  const ca = options.ca === undefined ? undefined : [...rootCertificates, ...(typeof options.ca === 'string' ? [options.ca] : options.ca)];
  if (!(connectTimeoutMs > 0) || !(maxResponseBytes > 0)) throw new RangeError('connectTimeoutMs and maxResponseBytes must be positive.');

  return {
    async post(url, request) {
      const checked = checkNotificationUrl(url.href, policy);
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
      if (!checked.ok) throw new NotificationTransportError('unsafe_url', `The notification URL for ${host} is refused: ${checked.message}`);
      if (!(request.timeoutMs > 0)) throw new RangeError('timeoutMs must be positive.');
      if (request.signal?.aborted === true) throw aborted(host);
      const started = Date.now();
      const budget = Math.min(connectTimeoutMs, request.timeoutMs);
      const pinned = await verifiedAddress(host, resolve, policy, budget, request.signal);
      const elapsed = Date.now() - started;
      return send({
        url,
        host,
        pinned,
        request,
        connectBudgetMs: budget - elapsed,
        totalBudgetMs: request.timeoutMs - elapsed,
        maxResponseBytes,
        ca,
      });
    },
  };
}
