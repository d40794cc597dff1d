import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeepAliveFetch, ResponseBodyTooLargeError, type KeepAliveFetch } from '@tollgate/core/node';

let server: Server | undefined;
let client: KeepAliveFetch | undefined;

async function serve(handler: (request: IncomingMessage, body: string, response: ServerResponse) => void): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handler(request, Buffer.concat(chunks).toString('utf8'), response));
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

afterEach(async () => {
  client?.close();
  client = undefined;
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

describe('createKeepAliveFetch', () => {
  it('sends the method, headers and body, returns a whole Response, and reuses one socket', async () => {
    const { url, connections } = await serve((request, body, response) => {
      response.writeHead(201, { 'content-type': 'application/json', 'x-echo': String(request.headers['x-token']) });
      response.end(JSON.stringify({ method: request.method, body, length: request.headers['content-length'] }));
    });
    client = createKeepAliveFetch();
    for (let i = 0; i < 3; i++) {
      const response = await client(`${url}/rpc`, { method: 'POST', headers: { 'X-Token': 'abc', 'content-type': 'application/json' }, body: '{"é":1}' });
      expect(response.status).toBe(201);
      expect(response.ok).toBe(true);
      expect(response.headers.get('x-echo')).toBe('abc');
      // The byte length, not the string length, is announced.
      expect(await response.json()).toEqual({ method: 'POST', body: '{"é":1}', length: '8' });
    }
    expect(connections()).toBe(1);
  });

  it('accepts a Request, answers statuses without a body, and refuses what it cannot send', async () => {
    const { url } = await serve((request, body, response) => {
      if (request.url === '/empty') {
        response.writeHead(204);
        response.end();
        return;
      }
      response.writeHead(200);
      response.end(`${request.method} ${body}`);
    });
    client = createKeepAliveFetch();
    const fromRequest = await client(new Request(`${url}/x`, { method: 'PUT', body: 'payload' }));
    expect(await fromRequest.text()).toBe('PUT payload');
    const empty = await client(`${url}/empty`);
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe('');
    await expect(client('ftp://example.com/')).rejects.toThrow(TypeError);
    await expect(client(`${url}/x`, { method: 'POST', body: new URLSearchParams('a=1') })).rejects.toThrow(TypeError);
  });

  it('rejects with the signal’s reason when aborted, and when the body exceeds the cap', async () => {
    const { url } = await serve((request, _body, response) => {
      if (request.url === '/big') {
        response.writeHead(200);
        response.end('x'.repeat(2_000));
      }
      // Any other path never answers.
    });
    client = createKeepAliveFetch({ maxResponseBytes: 1_000 });
    await expect(client(`${url}/big`)).rejects.toBeInstanceOf(ResponseBodyTooLargeError);
    const controller = new AbortController();
    const hanging = client(`${url}/hang`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('gave up')), 20);
    await expect(hanging).rejects.toThrow('gave up');
    await expect(client(`${url}/hang`, { signal: AbortSignal.abort(new Error('already')) })).rejects.toThrow('already');
  });

  it('answers 205 without a body instead of failing on the body the server sent', async () => {
    const { url } = await serve((_request, _body, response) => {
      response.writeHead(205, { 'content-length': '2' });
      response.end('ok');
    });
    client = createKeepAliveFetch();
    const reset = await client(url);
    expect(reset.status).toBe(205);
    expect(await reset.text()).toBe('');
  });

  it('resends an idempotent request once when its kept-alive socket was closed by the server, never a POST', async () => {
    const requestsPerSocket = new WeakMap<object, number>();
    const { url, connections } = await serve((request, _body, response) => {
      const count = (requestsPerSocket.get(request.socket) ?? 0) + 1;
      requestsPerSocket.set(request.socket, count);
      // A server that drops an idle kept-alive connection just as the next request arrives.
      if (count > 1) {
        request.socket.destroy();
        return;
      }
      response.end('fine');
    });
    client = createKeepAliveFetch();
    expect(await (await client(`${url}/a`)).text()).toBe('fine');
    expect(await (await client(`${url}/b`)).text()).toBe('fine');
    expect(connections()).toBe(2);
    await expect(client(`${url}/c`, { method: 'POST', body: 'x' })).rejects.toMatchObject({ code: 'ECONNRESET' });
  });

  it('rejects when nothing listens', async () => {
    const { url } = await serve(() => undefined);
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    client = createKeepAliveFetch();
    await expect(client(url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
