import { RequestError } from '../errors/request';

/**
 * Where a request body comes from: a web stream (fetch) or any async iterable of chunks (Node).
 *
 * @example
 * ```ts
 * import type { BodySource } from '@tollgate/core/http';
 * const source: BodySource = new Blob(['{"a":1}']).stream();
 * ```
 */
export type BodySource = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/** Limits for {@link readCapped}. */
export interface ReadLimits {
  /** Refuse with `payload_too_large` as soon as more than this many bytes arrived. */
  maxBytes: number;
  /** Refuse with `request_timeout` when the whole body has not arrived after this many milliseconds. */
  timeoutMs: number;
}

interface Puller {
  next(): Promise<IteratorResult<unknown>>;
  cancel(): void;
}

const ignore = (): void => {};

function pullerFor(source: BodySource): Puller {
  if (typeof (source as ReadableStream<Uint8Array>).getReader === 'function') {
    const reader = (source as ReadableStream<Uint8Array>).getReader();
    return { next: () => reader.read() as Promise<IteratorResult<unknown>>, cancel: () => void reader.cancel().catch(ignore) };
  }
  const iterator = (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  return {
    next: () => iterator.next(),
    cancel: () => {
      try {
        void iterator.return?.()?.catch(ignore);
      } catch {
        // A source that cannot be cancelled is simply abandoned.
      }
    },
  };
}

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return new TextEncoder().encode(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError('request body sources must yield Uint8Array chunks');
}

/**
 * Reads a body into one `Uint8Array`, stopping at the first byte over `maxBytes` and at the deadline,
 * and cancelling the source in both cases so nothing more is buffered. A source that fails (a client
 * that hung up mid-body) is reported as `malformed_body`.
 *
 * @param source - The body chunks.
 * @param limits - Size cap and deadline.
 * @returns The bytes, in a fresh plain `Uint8Array`.
 * @throws RequestError `payload_too_large`, `request_timeout` or `malformed_body`.
 */
export async function readCapped(source: BodySource, limits: ReadLimits): Promise<Uint8Array> {
  const puller = pullerFor(source);
  const chunks: Uint8Array[] = [];
  let total = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RequestError('request_timeout', 'The request body did not arrive in time.', { details: { timeoutMs: limits.timeoutMs } })),
      limits.timeoutMs,
    );
  });
  deadline.catch(ignore);
  try {
    for (;;) {
      const pending = puller.next();
      // The losing side of the race may still reject later; that must not become an unhandled rejection.
      pending.catch(ignore);
      let step: IteratorResult<unknown>;
      try {
        step = await Promise.race([pending, deadline]);
      } catch (error) {
        if (error instanceof RequestError) throw error;
        throw new RequestError('malformed_body', 'The request body could not be read to its end.', { cause: error });
      }
      if (step.done) break;
      const chunk = toBytes(step.value);
      total += chunk.byteLength;
      if (total > limits.maxBytes) {
        throw new RequestError('payload_too_large', `The request body is larger than ${limits.maxBytes} bytes.`, {
          details: { maxBytes: limits.maxBytes },
        });
      }
      chunks.push(chunk);
    }
  } catch (error) {
    puller.cancel();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return concatBytes(chunks, total);
}

/**
 * Joins chunks into one fresh `Uint8Array`.
 *
 * @param chunks - The chunks in order.
 * @param total - Their combined length.
 * @returns The joined bytes.
 */
export function concatBytes(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
