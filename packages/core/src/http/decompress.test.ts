import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { RequestError } from '../errors';
import { gunzipWithWebStreams, webDecompressors } from './index';
import { rejectedWith } from '../../test/support/thrown';

const text = 'tollgate '.repeat(1000);
const gzipped = new Uint8Array(gzipSync(text));

const refusal = (promise: Promise<unknown>): Promise<RequestError> => rejectedWith(RequestError, promise);

describe('gunzipWithWebStreams', () => {
  it('inflates gzip and is the web default for gzip', async () => {
    expect(new TextDecoder().decode(await gunzipWithWebStreams(gzipped, text.length))).toBe(text);
    expect(webDecompressors.gzip).toBe(gunzipWithWebStreams);
    expect(Object.keys(webDecompressors)).toEqual(['gzip']);
  });

  it('refuses output one byte over the cap with payload_too_large', async () => {
    const error = await refusal(gunzipWithWebStreams(gzipped, text.length - 1));
    expect(error.code).toBe('payload_too_large');
    expect(error.details).toEqual({ maxBytes: text.length - 1 });
  });

  it('stops inflating a bomb at the cap', async () => {
    const bomb = new Uint8Array(gzipSync(new Uint8Array(50 * 1024 * 1024)));
    let started = performance.now();
    expect((await gunzipWithWebStreams(bomb, 50 * 1024 * 1024)).byteLength).toBe(50 * 1024 * 1024);
    const inflateAll = performance.now() - started;
    started = performance.now();
    expect((await refusal(gunzipWithWebStreams(bomb, 64 * 1024))).code).toBe('payload_too_large');
    // Stopping at the cap costs a few output chunks, not the whole 50 MiB.
    expect(performance.now() - started).toBeLessThan(inflateAll / 4);
  });

  it('refuses truncated, garbage and trailing-junk input with malformed_body', async () => {
    for (const input of [gzipped.subarray(0, gzipped.length - 4), gzipped.subarray(0, 5), new TextEncoder().encode('plain text')]) {
      expect((await refusal(gunzipWithWebStreams(input, 1e6))).code).toBe('malformed_body');
    }
  });
});
