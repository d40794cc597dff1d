import { brotliCompressSync, constants, gunzip, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RequestError } from '../errors';
import { nodeBrotliDecompress, nodeDecompressors, nodeGunzip } from './node-decompress';
import { cappedZlib, type ZlibCall } from './node-zlib-cap';
import { rejectedWith } from '../../test/support/thrown';

const text = 'tollgate '.repeat(1000);
const zeros = new Uint8Array(50 * 1024 * 1024);
const codecs = [
  { name: 'gzip', decompress: nodeGunzip, compress: (input: Uint8Array | string) => new Uint8Array(gzipSync(input)) },
  { name: 'br', decompress: nodeBrotliDecompress, compress: (input: Uint8Array | string) => new Uint8Array(brotliCompressSync(input, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } })) },
];

const refusal = (promise: Promise<unknown>): Promise<RequestError> => rejectedWith(RequestError, promise);

describe('nodeDecompressors', () => {
  it('maps gzip and br', () => {
    expect(nodeDecompressors).toEqual({ gzip: nodeGunzip, br: nodeBrotliDecompress });
  });

  describe.each(codecs)('$name', ({ decompress, compress }) => {
    it('inflates into a plain Uint8Array, accepting exactly the cap', async () => {
      const out = await decompress(compress(text), text.length);
      expect(new TextDecoder().decode(out)).toBe(text);
      expect(Object.getPrototypeOf(out)).toBe(Uint8Array.prototype);
    });

    it('refuses one byte over the cap and stops a bomb early', async () => {
      expect((await refusal(decompress(compress(text), text.length - 1))).code).toBe('payload_too_large');
      const bomb = compress(zeros);
      expect((await decompress(bomb, zeros.length)).byteLength).toBe(zeros.length);
      expect((await refusal(decompress(bomb, 64 * 1024))).code).toBe('payload_too_large');
    });

    it('refuses truncated and garbage input with malformed_body', async () => {
      const whole = compress(text);
      for (const input of [whole.subarray(0, whole.length - 4), new TextEncoder().encode('certainly not compressed')]) {
        expect((await refusal(decompress(input, 1e6))).code).toBe('malformed_body');
      }
    });
  });

  // Stopping at the cap costs a few output chunks, not the whole 50 MiB: zlib stops as soon as its output
  // passes maxOutputLength (Node's contract), so what is checked is that the cap reaches zlib. This used to
  // be a timed comparison with a full inflation, which failed CI once on a loaded machine.
  it('hands zlib the cap as maxOutputLength, so a bomb stops at the cap', async () => {
    const seen: unknown[] = [];
    const recording: ZlibCall = (input, options, callback) => {
      seen.push(options.maxOutputLength);
      gunzip(input, options, callback);
    };
    const bomb = new Uint8Array(gzipSync(zeros));
    expect((await refusal(cappedZlib(recording, 'gzip')(bomb, 64 * 1024))).code).toBe('payload_too_large');
    expect((await cappedZlib(recording, 'gzip')(bomb, zeros.length)).byteLength).toBe(zeros.length);
    expect(seen).toEqual([64 * 1024, zeros.length]);
  });
});
