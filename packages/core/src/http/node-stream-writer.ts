import type { ServerResponse } from 'node:http';

/**
 * Closes a stream that will not be (fully) sent, so its producer's `finally` runs and releases what it
 * holds. Never throws.
 *
 * @param stream - The stream, if any.
 */
export function closeQuietly(stream: AsyncIterable<Uint8Array> | undefined): void {
  if (stream === undefined) return;
  try {
    void Promise.resolve(stream[Symbol.asyncIterator]().return?.()).catch(() => undefined);
  } catch {
    // A stream that cannot be closed is simply abandoned.
  }
}

type Wait = 'drain' | 'closed' | 'stalled';

/**
 * Writes a streamed body to a Node response with back-pressure: the next chunk is pulled only after
 * the socket took the previous one (`write` returned true, or `drain` fired). Ends in one of three ways,
 * each leaving nothing behind:
 * - the stream ends: the response ends (the terminating chunk tells the client the body is whole);
 * - the client disconnects, or does not drain within `stallTimeoutMs`: the iterator's `return()` runs
 *   and the response is destroyed;
 * - the producer throws: the response is destroyed without the terminating chunk, so the client sees a
 *   truncated body rather than a complete-looking one.
 *
 * @param stream - The body chunks.
 * @param response - The response, headers already written.
 * @param stallTimeoutMs - How long to wait for a full socket buffer to drain.
 * @returns When the stream is finished one way or the other; never rejects.
 */
export async function pumpStream(stream: AsyncIterable<Uint8Array>, response: ServerResponse, stallTimeoutMs: number): Promise<void> {
  const iterator = stream[Symbol.asyncIterator]();
  let closed = response.destroyed;
  let wake: ((why: Wait) => void) | undefined;
  const onClose = (): void => {
    closed = true;
    wake?.('closed');
  };
  const onDrain = (): void => wake?.('drain');
  response.on('close', onClose).on('drain', onDrain);
  try {
    for (;;) {
      if (closed) {
        await iterator.return?.();
        return;
      }
      const step = await iterator.next();
      if (step.done) {
        if (!closed) response.end();
        return;
      }
      if (closed) {
        await iterator.return?.();
        return;
      }
      if (!response.write(step.value)) {
        const why = await waitForDrain(stallTimeoutMs, (resume) => (wake = resume));
        wake = undefined;
        if (why !== 'drain') {
          await iterator.return?.();
          response.destroy();
          return;
        }
      }
    }
  } catch {
    // A producer that failed mid-stream (or a failing return()): the body cannot be completed honestly.
    response.destroy();
  } finally {
    response.off('close', onClose).off('drain', onDrain);
  }
}

function waitForDrain(stallTimeoutMs: number, register: (resume: (why: Wait) => void) => void): Promise<Wait> {
  return new Promise<Wait>((resolve) => {
    const timer = setTimeout(() => resolve('stalled'), stallTimeoutMs);
    register((why) => {
      clearTimeout(timer);
      resolve(why);
    });
  });
}
