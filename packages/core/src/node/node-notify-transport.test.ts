import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NotificationTransportError } from '@tollgate/core';
import { createNodeNotificationTransport, type NotificationResolver, type ResolvedAddress } from '@tollgate/core/node';
import { rejectedWith } from '../../test/support/thrown';

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
  localAddress: string | undefined;
  servername: string | undefined;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const open: (Server | TcpServer)[] = [];

const sockets = new Set<Socket>();

afterEach(async () => {
  // Destroy the server side of every connection too: a silent server never reads the client's FIN.
  sockets.forEach((socket) => socket.destroy());
  sockets.clear();
  await Promise.all(open.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

async function listen<S extends Server | TcpServer>(server: S, host: string): Promise<{ server: S; port: number }> {
  open.push(server);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A real HTTP receiver that records every request and every TCP connection. */
async function receiver(handler: Handler = (_req, res) => res.end('ok'), host = '127.0.0.1', server: Server = createServer()) {
  const requests: Received[] = [];
  let connections = 0;
  server.on('connection', () => (connections += 1));
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const socket = req.socket as IncomingMessage['socket'] & { servername?: string | false };
      requests.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        localAddress: socket.localAddress,
        servername: typeof socket.servername === 'string' ? socket.servername : undefined,
      });
      handler(req, res);
    });
  });
  const { port } = await listen(server, host);
  return { requests, port, connections: () => connections };
}

/** A resolver that answers `first`, then `later` on any further call (a rebinding DNS server). */
function rebindingResolver(first: ResolvedAddress[], later: ResolvedAddress[] = [{ address: '10.0.0.1', family: 4 }]) {
  const calls: string[] = [];
  const resolve: NotificationResolver = async (hostname) => {
    calls.push(hostname);
    return calls.length === 1 ? first : later;
  };
  return { resolve, calls };
}

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });
const signedHeaders = {
  'content-type': 'application/json',
  'user-agent': 'Tollgate-Notifier/1 (+https://github.com/tollgate-dev/tollgate)',
  'idempotency-key': 'ntf_1',
  'tollgate-timestamp': '1772366400',
  'tollgate-signature': `t=1772366400,abcd=${'0'.repeat(64)}`,
};
const body = JSON.stringify({ event: 'payment.settled', id: 'ntf_1', note: 'é ✓' });

const refusal = (promise: Promise<unknown>) => rejectedWith(NotificationTransportError, promise);

describe('createNodeNotificationTransport', () => {
  it('sends the exact body and headers to the verified address, keeps the name as Host, and resolves once', async () => {
    const target = await receiver(undefined, '127.0.0.2');
    const dns = rebindingResolver([v4('127.0.0.2')]);
    const transport = createNodeNotificationTransport({ resolve: dns.resolve, insecureAllowLoopbackForTests: true });
    const answer = await transport.post(new URL(`http://hooks.example.com:${target.port}/hook?order=7`), { headers: signedHeaders, body, timeoutMs: 5_000 });
    expect(answer).toEqual({ status: 200 });
    expect(dns.calls).toEqual(['hooks.example.com']);
    expect(target.requests).toHaveLength(1);
    const [received] = target.requests;
    expect(received).toMatchObject({ method: 'POST', url: '/hook?order=7', body, localAddress: '127.0.0.2' });
    expect(received?.headers).toMatchObject({ ...signedHeaders, host: `hooks.example.com:${target.port}`, 'content-length': String(Buffer.byteLength(body)) });
  });

  it.each([
    ['loopback', v4('127.0.0.1')],
    ['RFC 1918 10/8', v4('10.1.2.3')],
    ['RFC 1918 172.16/12', v4('172.16.5.4')],
    ['RFC 1918 192.168/16', v4('192.168.1.1')],
    ['link-local metadata', v4('169.254.169.254')],
    ['CGNAT', v4('100.64.0.1')],
    ['unspecified', v4('0.0.0.0')],
    ['IPv6 loopback', v6('::1')],
    ['IPv6 ULA', v6('fd12:3456::1')],
    ['IPv6 link-local', v6('fe80::1')],
    ['IPv6 with a zone id', v6('fe80::1%eth0')],
    ['IPv4-mapped loopback', v6('::ffff:127.0.0.1')],
    ['IPv4-mapped metadata', v6('::ffff:169.254.169.254')],
    ['NAT64 of a private address', v6('64:ff9b::a00:1')],
  ])('refuses a name that resolves to %s', async (_kind, address) => {
    const transport = createNodeNotificationTransport({ resolve: async () => [address] });
    const error = await refusal(transport.post(new URL('https://hooks.example.com/hook'), { headers: signedHeaders, body, timeoutMs: 5_000 }));
    expect({ reason: error.reason, retryable: error.retryable }).toEqual({ reason: 'non_public_address', retryable: false });
  });

  it.each([
    ['private', v4('10.0.0.7')],
    ['link-local', v4('169.254.169.254')],
    ['CGNAT', v4('100.100.1.1')],
    ['ULA', v6('fc00::5')],
    ['IPv4-mapped private', v6('::ffff:192.168.0.1')],
  ])('refuses mixed answers (an allowed address plus a %s one) before connecting anywhere', async (_kind, bad) => {
    const target = await receiver();
    for (const answers of [[v4('127.0.0.1'), bad], [bad, v4('127.0.0.1')]]) {
      const transport = createNodeNotificationTransport({ resolve: async () => answers, insecureAllowLoopbackForTests: true });
      const error = await refusal(transport.post(new URL(`http://hooks.example.com:${target.port}/`), { headers: signedHeaders, body, timeoutMs: 5_000 }));
      expect(error.reason).toBe('non_public_address');
    }
    expect(target.connections()).toBe(0);
  });

  it('refuses public plus private answers outside test mode too', async () => {
    const transport = createNodeNotificationTransport({ resolve: async () => [v4('93.184.216.34'), v4('10.0.0.1')] });
    expect((await refusal(transport.post(new URL('https://hooks.example.com/'), { headers: {}, body, timeoutMs: 5_000 }))).reason).toBe('non_public_address');
  });

  it.each([
    ['https://169.254.169.254/latest/meta-data', false],
    ['https://[::ffff:7f00:1]/hook', false],
    ['https://10.0.0.1/hook', true],
    ['http://hooks.example.com/hook', false],
    ['https://hooks.example.com:8443/hook', false],
    ['https://localhost/hook', true],
    ['https://metadata.internal/hook', true],
  ])('refuses the unsafe URL %s without resolving it', async (url, testMode) => {
    const dns = rebindingResolver([v4('93.184.216.34')]);
    const transport = createNodeNotificationTransport({ resolve: dns.resolve, insecureAllowLoopbackForTests: testMode });
    const error = await refusal(transport.post(new URL(url), { headers: {}, body, timeoutMs: 5_000 }));
    expect({ reason: error.reason, retryable: error.retryable }).toEqual({ reason: 'unsafe_url', retryable: false });
    expect(dns.calls).toEqual([]);
  });

  it('connects to a loopback IP literal only in test mode, without any DNS lookup', async () => {
    const target = await receiver();
    const dns = rebindingResolver([v4('10.0.0.1')]);
    const url = new URL(`http://127.0.0.1:${target.port}/direct`);
    const strict = createNodeNotificationTransport({ resolve: dns.resolve });
    expect((await refusal(strict.post(url, { headers: {}, body, timeoutMs: 5_000 }))).reason).toBe('unsafe_url');
    const testing = createNodeNotificationTransport({ resolve: dns.resolve, insecureAllowLoopbackForTests: true });
    expect(await testing.post(url, { headers: {}, body, timeoutMs: 5_000 })).toEqual({ status: 200 });
    expect(dns.calls).toEqual([]);
  });

  it('reports DNS failures, empty answers and a resolver that never answers as retryable dns_failure', async () => {
    const url = new URL('https://hooks.example.com/');
    const notFound = createNodeNotificationTransport({ resolve: async () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })) });
    const empty = createNodeNotificationTransport({ resolve: async () => [] });
    const hanging = createNodeNotificationTransport({ resolve: () => new Promise(() => undefined), connectTimeoutMs: 100 });
    for (const transport of [notFound, empty, hanging]) {
      const error = await refusal(transport.post(url, { headers: {}, body, timeoutMs: 5_000 }));
      expect({ reason: error.reason, retryable: error.retryable }).toEqual({ reason: 'dns_failure', retryable: true });
    }
  });

  it('returns a redirect as the status and never requests its Location', async () => {
    const elsewhere = await receiver();
    const target = await receiver((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/internal` });
      res.end();
    });
    const transport = createNodeNotificationTransport({ insecureAllowLoopbackForTests: true });
    expect(await transport.post(new URL(`http://127.0.0.1:${target.port}/`), { headers: {}, body, timeoutMs: 5_000 })).toEqual({ status: 302 });
    expect(elsewhere.connections()).toBe(0);
  });

  it('returns error statuses as they are (the deliverer classifies them)', async () => {
    const target = await receiver((_req, res) => {
      res.statusCode = 503;
      res.end('busy');
    });
    const transport = createNodeNotificationTransport({ insecureAllowLoopbackForTests: true });
    expect(await transport.post(new URL(`http://127.0.0.1:${target.port}/`), { headers: {}, body, timeoutMs: 5_000 })).toEqual({ status: 503 });
  });

  it('stops reading an endless answer at the response cap and closes the connection', async () => {
    let closed: () => void = () => undefined;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    const target = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(16 * 1024);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      res.on('close', closed);
      pump();
    });
    // A deadline far beyond the test timeout: only the cap can end this exchange in time.
    const transport = createNodeNotificationTransport({ insecureAllowLoopbackForTests: true, maxResponseBytes: 1024 });
    expect(await transport.post(new URL(`http://127.0.0.1:${target.port}/`), { headers: {}, body, timeoutMs: 600_000 })).toEqual({ status: 200 });
    await connectionClosed;
  });

  it('keeps the status of an answer whose body never ends', async () => {
    const target = await receiver((_req, res) => {
      res.writeHead(202, { 'content-type': 'text/plain' });
      res.write('accepted, and then nothing more');
    });
    const transport = createNodeNotificationTransport({ insecureAllowLoopbackForTests: true });
    expect(await transport.post(new URL(`http://127.0.0.1:${target.port}/`), { headers: {}, body, timeoutMs: 300 })).toEqual({ status: 202 });
  });

  it('times out a receiver that never answers', async () => {
    const target = await receiver(() => undefined);
    const transport = createNodeNotificationTransport({ insecureAllowLoopbackForTests: true });
    const error = await refusal(transport.post(new URL(`http://127.0.0.1:${target.port}/`), { headers: {}, body, timeoutMs: 200 }));
    expect({ reason: error.reason, retryable: error.retryable }).toEqual({ reason: 'timeout', retryable: true });
  });

  it('gives up on a connection whose TLS handshake never completes after the connect deadline', async () => {
    const silent = await listen(createTcpServer(() => undefined), '127.0.0.1');
    const transport = createNodeNotificationTransport({ insecureAllowLoopbackForTests: true, connectTimeoutMs: 150 });
    const error = await refusal(transport.post(new URL(`https://127.0.0.1:${silent.port}/`), { headers: {}, body, timeoutMs: 10_000 }));
    expect({ reason: error.reason, retryable: error.retryable }).toEqual({ reason: 'connect_timeout', retryable: true });
  });

  it('reports a refused connection as retryable connection_failed', async () => {
    const closedPort = await listen(createTcpServer(), '127.0.0.1');
    await new Promise<void>((resolve) => closedPort.server.close(() => resolve()));
    const transport = createNodeNotificationTransport({ insecureAllowLoopbackForTests: true });
    const error = await refusal(transport.post(new URL(`http://127.0.0.1:${closedPort.port}/`), { headers: {}, body, timeoutMs: 5_000 }));
    expect({ reason: error.reason, retryable: error.retryable }).toEqual({ reason: 'connection_failed', retryable: true });
  });

  it('aborts on the signal, before or during the request', async () => {
    const target = await receiver(() => undefined);
    const transport = createNodeNotificationTransport({ insecureAllowLoopbackForTests: true });
    const url = new URL(`http://127.0.0.1:${target.port}/`);
    expect((await refusal(transport.post(url, { headers: {}, body, timeoutMs: 5_000, signal: AbortSignal.abort() }))).reason).toBe('aborted');
    const controller = new AbortController();
    const pending = transport.post(url, { headers: {}, body, timeoutMs: 60_000, signal: controller.signal });
    while (target.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect((await refusal(pending)).reason).toBe('aborted');
  });
});

const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A self-signed certificate for `name` (PEM key and certificate). */
function selfSigned(name: string): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-tls-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=${name}`,
      '-addext', `subjectAltName=DNS:${name}`, '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!hasOpenssl)('createNodeNotificationTransport over TLS (needs the openssl CLI for a test certificate)', () => {
  it('sends SNI for the host name and checks the certificate against the name, while connecting to the pinned address', async () => {
    const tls = selfSigned('hooks.example.com');
    const target = await receiver(undefined, '127.0.0.2', createHttpsServer({ key: tls.key, cert: tls.cert }) as unknown as Server);
    const dns = rebindingResolver([v4('127.0.0.2')]);
    const transport = createNodeNotificationTransport({ resolve: dns.resolve, ca: tls.cert, insecureAllowLoopbackForTests: true });
    expect(await transport.post(new URL(`https://hooks.example.com:${target.port}/tls`), { headers: signedHeaders, body, timeoutMs: 5_000 })).toEqual({ status: 200 });
    expect(target.requests[0]).toMatchObject({ servername: 'hooks.example.com', localAddress: '127.0.0.2', body });
    expect(target.requests[0]?.headers.host).toBe(`hooks.example.com:${target.port}`);
    expect(dns.calls).toHaveLength(1);
  });

  it('refuses a certificate issued for another name (retryable: the receiver may fix it)', async () => {
    const tls = selfSigned('other.example.org');
    const target = await receiver(undefined, '127.0.0.1', createHttpsServer({ key: tls.key, cert: tls.cert }) as unknown as Server);
    const transport = createNodeNotificationTransport({ resolve: async () => [v4('127.0.0.1')], ca: tls.cert, insecureAllowLoopbackForTests: true });
    const error = await refusal(transport.post(new URL(`https://hooks.example.com:${target.port}/`), { headers: {}, body, timeoutMs: 5_000 }));
    expect({ reason: error.reason, retryable: error.retryable }).toEqual({ reason: 'connection_failed', retryable: true });
    expect(target.requests).toHaveLength(0);
  });
});
