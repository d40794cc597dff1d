import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { onShutdownSignal, startHttpServer } from './http-server';

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('startHttpServer', () => {
  it('drains an in-flight request on close, then refuses new connections', async () => {
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    const server = await startHttpServer(
      (_req, res) => {
        arrived();
        setTimeout(() => res.end('done'), 200);
      },
      { port: 0, host: '127.0.0.1' },
    );
    const inFlight = get(server.url);
    await requestArrived;
    const closed = server.close();
    expect(await inFlight).toEqual({ status: 200, body: 'done' });
    await closed;
    await expect(get(server.url)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('destroys connections still open after the grace period', async () => {
    const server = await startHttpServer(() => undefined, { port: 0, host: '127.0.0.1' });
    const hanging = get(server.url).catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await server.close(100);
    expect(await hanging).toBeInstanceOf(Error);
  });
});

describe('onShutdownSignal', () => {
  it('runs shutdown once on the first signal and exits at once on the second', async () => {
    const exits: number[] = [];
    let shutdowns = 0;
    let finish!: () => void;
    const remove = onShutdownSignal(
      () => {
        shutdowns += 1;
        return new Promise<void>((resolve) => (finish = resolve));
      },
      (code) => exits.push(code),
    );
    // Removed whatever happens: the unit tier's workers run many files, and a listener left behind would
    // swallow the worker's own SIGTERM.
    try {
      process.emit('SIGTERM', 'SIGTERM');
      process.emit('SIGINT', 'SIGINT');
      expect(shutdowns).toBe(1);
      expect(exits).toEqual([130]);
      finish();
      await new Promise((resolve) => setImmediate(resolve));
      expect(exits).toEqual([130, 0]);
    } finally {
      remove();
    }
  });
});
