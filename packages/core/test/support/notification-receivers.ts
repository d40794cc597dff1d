// Real HTTP receivers for the notification tests (merchant endpoints on loopback), and small helpers
// to wait for asynchronous worker outcomes without fixed sleeps.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a receiver got: the raw body exactly as sent, and its headers. */
export interface ReceivedNotification {
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What a receiver answers: a status, or `hang` (read the request, never answer). */
export type ReceiverAnswer = number | 'hang';

/** A listening receiver. */
export interface Receiver {
  /** `http://127.0.0.1:<port>/hooks/tollgate?token=receiver-secret` (the query mimics a merchant's own token). */
  readonly url: string;
  readonly port: number;
  readonly requests: readonly ReceivedNotification[];
  /** How many requests it has answered so far (a `hang` answer never counts). */
  readonly answered: number;
  /** Resolves once the receiver got at least `count` requests. */
  received(count: number): Promise<readonly ReceivedNotification[]>;
  close(): Promise<void>;
}

/**
 * Starts a receiver on 127.0.0.1. `answers` are used in order, the last one repeating (default 200).
 *
 * @param options - Fixed port (to bring a receiver up where one was down) and the answers.
 */
export async function startReceiver(options: { port?: number; answers?: ReceiverAnswer[] } = {}): Promise<Receiver> {
  const answers = [...(options.answers ?? [200])];
  const requests: ReceivedNotification[] = [];
  let answered = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method, path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.length > 1 ? (answers.shift() as ReceiverAnswer) : (answers[0] as ReceiverAnswer);
      for (const waiter of waiters.filter((entry) => requests.length >= entry.count)) waiter.resolve();
      if (answer === 'hang') return;
      res.statusCode = answer;
      res.end(answer < 300 ? 'ok' : 'not ok');
      answered += 1;
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/tollgate?token=receiver-secret`,
    port,
    requests,
    get answered() {
      return answered;
    },
    received(count) {
      if (requests.length >= count) return Promise.resolve(requests);
      return new Promise((resolve) => waiters.push({ count, resolve: () => resolve(requests) }));
    },
    async close() {
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port that nothing listens on (bound, then released). */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Polls `read` until `done(value)` holds, and returns that value. For outcomes a background worker
 * writes to the database; the deadline only bounds a failing test.
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
