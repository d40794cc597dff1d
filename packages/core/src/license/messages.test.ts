import { describe, expect, it } from 'vitest';
import { renderLicenseClientError, LicenseClientError } from '@tollgate/core';
import { decodeLicenseMessage, encodeLicenseMessage, isArtifactError, licenseMessageSpecs, type LicenseMessageKind } from '@tollgate/core/license';
import { longerHeadVariants } from '../../test/license/non-canonical';
import { sampleMessages } from '../../test/vectors/license-fixtures';

const samples = sampleMessages();
const kinds = Object.keys(samples) as Exclude<LicenseMessageKind, 'keyset'>[];

describe('unsigned license messages', () => {
  it('round-trip every kind byte-identically and refuse non-canonical variants', () => {
    for (const kind of kinds) {
      const encoded = encodeLicenseMessage(kind, samples[kind] as never);
      expect(decodeLicenseMessage(kind, encoded)).toEqual(samples[kind]);
      for (const variant of longerHeadVariants(encoded)) {
        let reason: string | undefined;
        try {
          decodeLicenseMessage(kind, variant);
        } catch (error) {
          if (isArtifactError(error)) reason = error.reason;
        }
        expect(reason, kind).toBe('bad_encoding');
      }
    }
  });

  it('decodes the error body the server renders, keys 0, 1 and 2 as the spec fixes', () => {
    const rendered = renderLicenseClientError(new LicenseClientError(5000, 'keyset cache is cold', { status: 503, retryAfterSeconds: 1 }));
    expect(decodeLicenseMessage('error-body', rendered.body)).toEqual({ code: 5000, message: 'keyset cache is cold', retryAfter: 1 });
    expect(licenseMessageSpecs['error-body'].fieldKeys).toEqual({ code: 0, message: 1, retryAfter: 2 });
  });

  it('refuses unknown keys, wrong types and unknown kinds', () => {
    expect(() => decodeLicenseMessage('heartbeat-response', new Map<number, unknown>([[0, 1], [1, true], [2, 5], [3, new Uint8Array(32)], [4, 0]]) as never)).toThrow(/unknown key 4/);
    expect(() => decodeLicenseMessage('account-session', new Uint8Array([0xa0]))).toThrow(/AccountSession is invalid/);
    expect(() => encodeLicenseMessage('pong' as never, {} as never)).toThrow(TypeError);
  });
});
