import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { AdminApiError, AdminResponseError } from '../src/errors';
import { createTransport } from '../src/transport';

/** An endless (or `chunks`-long) body that counts how often it was read and whether it was cancelled. */
function countingBody(chunk: Uint8Array | string, chunks = Number.POSITIVE_INFINITY) {
  const state = { pulls: 0, cancelled: false };
  const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        state.pulls += 1;
        if (state.pulls > chunks) controller.close();
        else controller.enqueue(bytes);
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { body, state };
}

/** A body made of exactly these byte chunks. */
function chunkedBody(...chunks: Uint8Array[]) {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

function transportAnswering(answers: (() => Response)[], maxResponseBytes = 1000) {
  const urls: URL[] = [];
  const fetch = async (input: string | URL | Request) => {
    urls.push(new URL(String(input)));
    const answer = answers[urls.length - 1];
    if (answer === undefined) throw new Error('unexpected call');
    return answer();
  };
  const transport = createTransport({ baseUrl: 'https://license.example.com', token: 't', fetch: fetch as typeof globalThis.fetch, maxResponseBytes }, { sleep: async () => undefined });
  return { transport, urls };
}

const read = { method: 'GET', path: '/x', kind: 'read', schema: v.unknown() } as const;

describe('admin transport: the response-size cap', () => {
  it('refuses a Content-Length over the cap without reading the body', async () => {
    const { body, state } = countingBody('x'.repeat(100));
    const { transport } = transportAnswering([() => new Response(body, { status: 200, headers: { 'content-length': '5000' } })]);
    const error = await transport.request(read).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AdminResponseError);
    expect(error).toMatchObject({ code: 'response_too_large', status: 200 });
    expect(state.pulls).toBe(0);
    expect(state.cancelled).toBe(true);
  });

  it('cancels a stream as soon as it passes the cap, for JSON, bytes, lines and error answers alike', async () => {
    const calls = [
      (transport: ReturnType<typeof transportAnswering>['transport']) => transport.request(read),
      (transport: ReturnType<typeof transportAnswering>['transport']) => transport.requestBytes(read),
      async (transport: ReturnType<typeof transportAnswering>['transport']) => {
        for await (const line of transport.requestLines(read)) void line;
      },
    ];
    for (const [index, call] of calls.entries()) {
      const { body, state } = countingBody('y'.repeat(299) + '\n');
      const { transport } = transportAnswering([() => new Response(body, { status: 200 })]);
      await expect(call(transport), `call ${index}`).rejects.toMatchObject({ code: 'response_too_large' });
      expect(state.cancelled, `call ${index}`).toBe(true);
      // 4 chunks of 300 bytes pass a 1000-byte cap; a few more pulls may be queued by the platform, never the stream.
      expect(state.pulls, `call ${index}`).toBeLessThanOrEqual(6);
    }
    const { body, state } = countingBody('z'.repeat(300));
    const { transport } = transportAnswering([() => new Response(body, { status: 500 })]);
    await expect(transport.request(read)).rejects.toMatchObject({ code: 'response_too_large', status: 500 });
    expect(state.cancelled).toBe(true);
  });

  it('accepts an answer of exactly the cap', async () => {
    const { transport } = transportAnswering([() => new Response(chunkedBody(new Uint8Array(600), new Uint8Array(400)), { status: 200 })]);
    await expect(transport.requestBytes(read)).resolves.toMatchObject({ bytes: new Uint8Array(1000) });
  });
});

describe('admin transport: lines', () => {
  it('splits lines across chunk boundaries, including a UTF-8 character cut in two', async () => {
    const encoded = new TextEncoder().encode('{"a":1}\n{"b":"é"}\r\n\nlast');
    const cut = encoded.indexOf(0xc3) + 1; // between the two bytes of "é"
    const { transport } = transportAnswering([() => new Response(chunkedBody(encoded.slice(0, 5), encoded.slice(5, cut), encoded.slice(cut)), { status: 200 })]);
    const lines: string[] = [];
    for await (const line of transport.requestLines(read)) lines.push(line);
    expect(lines).toEqual(['{"a":1}', '{"b":"é"}', 'last']);
  });

  it('cancels the stream when the consumer stops early', async () => {
    const { body, state } = countingBody('row\n');
    const { transport } = transportAnswering([() => new Response(body, { status: 200 })], 1_000_000);
    for await (const line of transport.requestLines(read)) {
      expect(line).toBe('row');
      break;
    }
    expect(state.cancelled).toBe(true);
  });

  it('reports an error answer before any line as AdminApiError', async () => {
    const { transport } = transportAnswering([() => new Response(JSON.stringify({ ok: false, error: { code: 'insufficient_scope', message: 'no' } }), { status: 403 })]);
    const lines = transport.requestLines(read)[Symbol.asyncIterator]();
    await expect(lines.next()).rejects.toBeInstanceOf(AdminApiError);
  });
});

describe('admin transport: pagination', () => {
  const page = (items: unknown[], nextCursor: string | null) => () => new Response(JSON.stringify({ ok: true, licenses: items, next_cursor: nextCursor }), { status: 200 });
  const itemSchema = v.looseObject({ id: v.number() });

  it('walks every page lazily with cursor and the caller’s query', async () => {
    const { transport, urls } = transportAnswering([page([{ id: 1 }, { id: 2 }], 'c1'), page([], 'c2'), page([{ id: 3 }], null)]);
    const list = transport.list({ path: '/licenses', query: { product_id: 'p', limit: 2 }, itemsKey: 'licenses', itemSchema });
    expect(urls).toHaveLength(0);
    const seen: number[] = [];
    for await (const item of list) seen.push(item.id);
    expect(seen).toEqual([1, 2, 3]);
    expect(urls.map((url) => url.search)).toEqual(['?product_id=p&limit=2', '?product_id=p&limit=2&cursor=c1', '?product_id=p&limit=2&cursor=c2']);
  });

  it('reads one page on demand and validates its items', async () => {
    const { transport, urls } = transportAnswering([page([{ id: 7 }], 'next'), page([{ id: 'eight' }], null)]);
    const list = transport.list({ path: '/licenses', itemsKey: 'licenses', itemSchema });
    await expect(list.page()).resolves.toEqual({ items: [{ id: 7 }], nextCursor: 'next' });
    const error = await list.page('next').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'invalid_response' });
    expect((error as Error).message).toContain('licenses.0.id');
    expect(urls[1]?.searchParams.get('cursor')).toBe('next');
  });

  it('stops with invalid_response instead of looping on a repeated cursor', async () => {
    const { transport } = transportAnswering([page([{ id: 1 }], 'same'), page([{ id: 2 }], 'same'), page([], null)]);
    const seen: number[] = [];
    const walk = async () => {
      for await (const item of transport.list({ path: '/licenses', itemsKey: 'licenses', itemSchema })) seen.push(item.id);
    };
    await expect(walk()).rejects.toMatchObject({ code: 'invalid_response' });
    expect(seen).toEqual([1, 2]);
  });
});
