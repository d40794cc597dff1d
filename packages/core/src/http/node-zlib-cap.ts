import { constants as bufferConstants } from 'node:buffer';
import type { BrotliOptions, ZlibOptions } from 'node:zlib';
import { corruptCompressedBody, decompressedTooLarge, type Decompressor } from './decompress';

// Not re-exported: node-decompress.ts builds the public decompressors from it, and its test hands it a
// recording zlib call to prove the cap reaches zlib (a timed comparison raced the machine's load).

/** A one-shot zlib call (`gunzip`, `brotliDecompress`). */
export type ZlibCall = (input: Uint8Array, options: ZlibOptions & BrotliOptions, callback: (error: Error | null, result: Uint8Array) => void) => void;

/**
 * A decompressor over a one-shot zlib call, capped with `maxOutputLength`: zlib stops and fails as soon
 * as its output passes the cap, so a bomb costs one output chunk, not its expanded size.
 *
 * @param run - The zlib call.
 * @param encoding - The content coding named in a malformed-body error.
 * @returns The decompressor.
 * @example
 * ```ts
 * import { gunzip } from 'node:zlib';
 * const decompress = cappedZlib(gunzip as ZlibCall, 'gzip');
 * ```
 */
export function cappedZlib(run: ZlibCall, encoding: string): Decompressor {
  return (input, maxOutputBytes) =>
    new Promise((resolve, reject) => {
      run(input, { maxOutputLength: Math.min(maxOutputBytes, bufferConstants.MAX_LENGTH) }, (error, result) => {
        if (!error) {
          resolve(new Uint8Array(result.buffer, result.byteOffset, result.byteLength));
        } else if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
          reject(decompressedTooLarge(maxOutputBytes));
        } else {
          reject(corruptCompressedBody(encoding, error));
        }
      });
    });
}
