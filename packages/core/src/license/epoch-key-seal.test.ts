import { describe, expect, it } from 'vitest';
import { CryptoError } from '@tollgate/core/crypto';
import { openEpochPrivateKey, sealEpochPrivateKey, sealedEpochKeyLength } from '@tollgate/core/license';
import { vectorBytes } from '../../test/vectors/license-fixtures';

const masterKey = vectorBytes('master-key');
const epochId = vectorBytes('epoch-id', 8);
const seed = vectorBytes('epoch-seed');

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof CryptoError) return error.code;
    throw error;
  }
  return undefined;
}

describe('sealing epoch private keys at rest', () => {
  it('round-trips with a fresh random nonce each time (72 bytes)', () => {
    const first = sealEpochPrivateKey(masterKey, epochId, seed);
    const second = sealEpochPrivateKey(masterKey, epochId, seed);
    expect(first).toHaveLength(sealedEpochKeyLength);
    expect(first).not.toEqual(second);
    expect(openEpochPrivateKey(masterKey, epochId, first)).toEqual(seed);
    expect(openEpochPrivateKey(masterKey, epochId, second)).toEqual(seed);
  });

  it('never shows the seed in the sealed bytes', () => {
    const sealed = sealEpochPrivateKey(masterKey, epochId, seed, (length) => new Uint8Array(length));
    expect(Buffer.from(sealed).includes(Buffer.from(seed))).toBe(false);
  });

  it('refuses a wrong master key, another epoch id, and altered bytes with invalid_key', () => {
    const sealed = sealEpochPrivateKey(masterKey, epochId, seed);
    expect(codeOf(() => openEpochPrivateKey(vectorBytes('other-master-key'), epochId, sealed))).toBe('invalid_key');
    expect(codeOf(() => openEpochPrivateKey(masterKey, vectorBytes('other-epoch', 8), sealed))).toBe('invalid_key');
    for (const index of [0, 30, sealed.length - 1]) {
      const altered = sealed.slice();
      altered[index] = (altered[index] as number) ^ 0x80;
      expect(codeOf(() => openEpochPrivateKey(masterKey, epochId, altered))).toBe('invalid_key');
    }
    expect(codeOf(() => openEpochPrivateKey(masterKey, epochId, sealed.subarray(1)))).toBe('invalid_key');
  });

  it('refuses master keys, epoch ids and seeds of the wrong length', () => {
    expect(codeOf(() => sealEpochPrivateKey(masterKey.subarray(1), epochId, seed))).toBe('invalid_key');
    expect(codeOf(() => sealEpochPrivateKey(masterKey, epochId.subarray(1), seed))).toBe('invalid_argument');
    expect(codeOf(() => sealEpochPrivateKey(masterKey, epochId, seed.subarray(1)))).toBe('invalid_key');
  });
});
