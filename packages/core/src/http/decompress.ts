import { RequestError } from '../errors/request';
import { concatBytes } from './read-stream';

/**
 * Decodes one `Content-Encoding`. Contract:
 * - resolves with the decoded bytes when they are at most `maxOutputBytes` long;
 * - rejects with `RequestError('payload_too_large')` as soon as the output passes `maxOutputBytes`,
 *   having stopped inflating (a decompression bomb is refused, never expanded in memory);
 * - rejects with `RequestError('malformed_body')` for corrupt or truncated input (any other error is
 *   treated the same way by the HTTP engine).
 *
 * @example
 * ```ts
 * import type { Decompressor } from '@tollgate/core/http';
 * const identity: Decompressor = async (input) => input;
 * ```
 */
export type Decompressor = (input: Uint8Array, maxOutputBytes: number) => Promise<Uint8Array>;

/**
 * Decompressors by lower-case `Content-Encoding` token (`gzip`, `br`, ...).
 *
 * @example
 * ```ts
 * import { webDecompressors, type Decompressors } from '@tollgate/core/http';
 * const gzipOnly: Decompressors = { gzip: webDecompressors.gzip! };
 * ```
 */
export type Decompressors = Readonly<Record<string, Decompressor>>;

const ignore = (): void => {};

/**
 * The refusal every decompressor raises when the output passes its cap.
 *
 * @param maxOutputBytes - The cap that was passed.
 * @returns The `payload_too_large` error.
 */
export function decompressedTooLarge(maxOutputBytes: number): RequestError {
  return new RequestError('payload_too_large', `The request body is larger than ${maxOutputBytes} bytes once decompressed.`, {
    details: { maxBytes: maxOutputBytes },
  });
}

/**
 * The refusal every decompressor raises for input it cannot decode.
 *
 * @param encoding - The content encoding.
 * @param cause - The decoder's own error, kept for logs.
 * @returns The `malformed_body` error.
 */
export function corruptCompressedBody(encoding: string, cause?: unknown): RequestError {
  return new RequestError('malformed_body', `The ${encoding} body is corrupt or truncated.`, { cause, details: { encoding } });
}

/**
 * Gzip through the web `DecompressionStream` (Node 18+, browsers, workers, Deno, Bun). Output is read
 * chunk by chunk and the stream is cancelled as soon as the cap is passed.
 *
 * @param input - The compressed bytes.
 * @param maxOutputBytes - The cap on the decompressed size.
 * @returns The decompressed bytes.
 * @example
 * ```ts
 * import { gunzipWithWebStreams } from '@tollgate/core/http';
 * const text = new TextDecoder().decode(await gunzipWithWebStreams(gzipped, 64 * 1024));
 * ```
 */
export async function gunzipWithWebStreams(input: Uint8Array, maxOutputBytes: number): Promise<Uint8Array> {
  if (typeof DecompressionStream !== 'function') {
    throw new RequestError('unsupported_media_type', 'This server cannot decode gzip bodies.', { details: { encoding: 'gzip' } });
  }
  const stream = new DecompressionStream('gzip');
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  // Write and read concurrently: the write only settles once the output side has been drained.
  writer
    .write(input as Uint8Array<ArrayBuffer>)
    .then(() => writer.close())
    .catch(ignore);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let step: ReadableStreamReadResult<Uint8Array>;
    try {
      step = await reader.read();
    } catch (cause) {
      throw corruptCompressedBody('gzip', cause);
    }
    if (step.done) break;
    total += step.value.byteLength;
    if (total > maxOutputBytes) {
      reader.cancel().catch(ignore);
      writer.abort().catch(ignore);
      throw decompressedTooLarge(maxOutputBytes);
    }
    chunks.push(step.value);
  }
  return concatBytes(chunks, total);
}

/**
 * The platform-neutral default: gzip only. `br` has no web-standard decoder; Node servers get it from
 * `nodeDecompressors` in `@tollgate/core/node`, which `toExpress` uses by default.
 *
 * @example
 * ```ts
 * import { toFetchHandler } from '@tollgate/core';
 * import { webDecompressors } from '@tollgate/core/http';
 * const handler = toFetchHandler(routes, { decompressors: webDecompressors });
 * ```
 */
export const webDecompressors: Decompressors = Object.freeze({ gzip: gunzipWithWebStreams });
