import { constants as bufferConstants } from 'node:buffer';
import { brotliDecompress, gunzip, type ZlibOptions, type BrotliOptions } from 'node:zlib';
import { corruptCompressedBody, decompressedTooLarge, type Decompressor, type Decompressors } from './decompress';

type ZlibCall = (input: Uint8Array, options: ZlibOptions & BrotliOptions, callback: (error: Error | null, result: Uint8Array) => void) => void;

function cappedZlib(run: ZlibCall, encoding: string): Decompressor {
  return (input, maxOutputBytes) =>
    new Promise((resolve, reject) => {
      // maxOutputLength makes zlib stop and fail as soon as the output passes the cap, so a bomb costs
      // one output chunk, not its expanded size.
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

/**
 * Gzip through Node's zlib, capped with `maxOutputLength`.
 *
 * @example
 * ```ts
 * import { nodeGunzip } from '@tollgate/core/node';
 * const json = new TextDecoder().decode(await nodeGunzip(gzipped, 64 * 1024));
 * ```
 */
export const nodeGunzip: Decompressor = cappedZlib(gunzip as ZlibCall, 'gzip');

/**
 * Brotli through Node's zlib, capped with `maxOutputLength`.
 *
 * @example
 * ```ts
 * import { nodeBrotliDecompress } from '@tollgate/core/node';
 * const bytes = await nodeBrotliDecompress(compressed, 16 * 1024);
 * ```
 */
export const nodeBrotliDecompress: Decompressor = cappedZlib(brotliDecompress as ZlibCall, 'br');

/**
 * The decompressors `toExpress` uses by default: `gzip` and `br` through Node's zlib. Pass them to
 * `toFetchHandler` too when it runs on Node and should accept brotli.
 *
 * @example
 * ```ts
 * import { toFetchHandler } from '@tollgate/core';
 * import { nodeDecompressors } from '@tollgate/core/node';
 * const handler = toFetchHandler(routes, { decompressors: nodeDecompressors });
 * ```
 */
export const nodeDecompressors: Decompressors = Object.freeze({ gzip: nodeGunzip, br: nodeBrotliDecompress });
