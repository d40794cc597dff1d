import { brotliDecompress, gunzip } from 'node:zlib';
import type { Decompressor, Decompressors } from './decompress';
import { cappedZlib, type ZlibCall } from './node-zlib-cap';

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
