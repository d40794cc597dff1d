/**
 * Reads answer bodies under a byte cap without ever holding more than the cap plus one chunk: a
 * declared `Content-Length` over the cap is refused before reading, and a stream is cancelled as soon
 * as its running total passes the cap.
 *
 * @module
 */
import { AdminResponseError } from './errors';

/** What a refused answer is reported with. */
export interface AnswerContext {
  readonly status: number;
  readonly requestId: string | undefined;
}

/** Called after every chunk (the transport re-arms its idle timer there). */
export type ChunkObserver = () => void;

function tooLarge(cap: number, context: AnswerContext, declared?: number): AdminResponseError {
  const what = declared === undefined ? 'streamed past' : `declared ${declared} bytes, over`;
  return new AdminResponseError('response_too_large', `The answer ${what} the client's maxResponseBytes of ${cap}.`, context.status, context.requestId);
}

/**
 * Refuses an answer whose `Content-Length` is over `cap`, cancelling its body unread.
 *
 * @throws {@link AdminResponseError} `response_too_large`.
 */
export function refuseDeclaredOversize(response: Response, cap: number, context: AnswerContext): void {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > cap) {
    void response.body?.cancel().catch(() => undefined);
    throw tooLarge(cap, context, declared);
  }
}

/**
 * Yields the body's chunks, cancelling the stream and throwing `response_too_large` as soon as the
 * running total passes `cap`. Stopping early (a `break` by the consumer) cancels the stream too.
 */
export async function* cappedChunks(response: Response, cap: number, context: AnswerContext, onChunk?: ChunkObserver): AsyncGenerator<Uint8Array> {
  refuseDeclaredOversize(response, cap, context);
  if (response.body === null) return;
  const reader = response.body.getReader();
  let total = 0;
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      onChunk?.();
      total += value.byteLength;
      if (total > cap) throw tooLarge(cap, context);
      yield value;
    }
  } finally {
    // Cancelling tells the platform to drop the connection instead of draining the rest of the body.
    if (!finished) void reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * The whole body as bytes, at most `cap` of them.
 *
 * @throws {@link AdminResponseError} `response_too_large`.
 */
export async function readCappedBytes(response: Response, cap: number, context: AnswerContext, onChunk?: ChunkObserver): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of cappedChunks(response, cap, context, onChunk)) {
    chunks.push(chunk);
    length += chunk.byteLength;
  }
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The whole body decoded as UTF-8 text, at most `cap` bytes of it. */
export async function readCappedText(response: Response, cap: number, context: AnswerContext, onChunk?: ChunkObserver): Promise<string> {
  return new TextDecoder().decode(await readCappedBytes(response, cap, context, onChunk));
}

/**
 * The body's text lines (split on `\n`, a trailing `\r` dropped, empty lines skipped), decoded as UTF-8
 * across chunk boundaries, with the whole body under `cap` bytes.
 */
export async function* cappedLines(response: Response, cap: number, context: AnswerContext, onChunk?: ChunkObserver): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of cappedChunks(response, cap, context, onChunk)) {
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split('\n');
    // The last piece has no newline yet: it waits for the next chunk.
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const text = line.endsWith('\r') ? line.slice(0, -1) : line;
      if (text !== '') yield text;
    }
  }
  pending += decoder.decode();
  const last = pending.replace(/\r$/, '');
  if (last !== '') yield last;
}
