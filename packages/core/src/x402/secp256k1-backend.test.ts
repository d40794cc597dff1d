import { randomBytes } from 'node:crypto';
import { keccak256, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { hexDecode, hexEncode } from '../crypto/hex';
import { evmSignerWithBackend, nobleSecp256k1, recoverDigestSigner, type Secp256k1Backend } from './index';

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_N = N >> 1n;
const word = (value: bigint) => value.toString(16).padStart(64, '0');
const randomDigest = () => new Uint8Array(randomBytes(32));

/** A backend that counts its calls and delegates to noble, or answers `recovered` when given. */
function countingBackend(recovered?: Uint8Array): Secp256k1Backend & { calls: number } {
  const backend = {
    name: 'counting',
    calls: 0,
    recoverPublicKey(digest: Uint8Array, signature: Uint8Array, recoveryBit: 0 | 1) {
      backend.calls += 1;
      return recovered ?? nobleSecp256k1.recoverPublicKey(digest, signature, recoveryBit);
    },
    sign: nobleSecp256k1.sign,
  };
  return backend;
}

describe('nobleSecp256k1', () => {
  it('signs byte-identically to viem privateKeyToAccount(key).sign({ hash }) (RFC 6979, low s, v 27/28)', async () => {
    for (let index = 0; index < 200; index += 1) {
      const key = generatePrivateKey();
      const digest = randomDigest();
      const { signature, recoveryBit } = nobleSecp256k1.sign(digest, hexDecode(key.slice(2)));
      const viemSignature = await privateKeyToAccount(key).sign({ hash: `0x${hexEncode(digest)}` });
      expect(`0x${hexEncode(signature)}${recoveryBit === 1 ? '1c' : '1b'}`).toBe(viemSignature);
      expect(BigInt(`0x${hexEncode(signature.subarray(32))}`) <= HALF_N).toBe(true);
    }
  });

  it('returns undefined rather than throwing when r is not the x-coordinate of a curve point', () => {
    // x = 5 is not on secp256k1 (5^3 + 7 = 132 is not a square modulo p).
    expect(nobleSecp256k1.recoverPublicKey(randomDigest(), hexDecode(`${word(5n)}${word(1n)}`), 0)).toBeUndefined();
  });
});

describe('recoverDigestSigner with an injected backend', () => {
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  const digest = randomDigest();
  const signed = nobleSecp256k1.sign(digest, hexDecode(key.slice(2)));
  const r = BigInt(`0x${hexEncode(signed.signature.subarray(0, 32))}`);
  const s = BigInt(`0x${hexEncode(signed.signature.subarray(32))}`);
  const v = signed.recoveryBit === 1 ? '1c' : '1b';
  const flippedV = signed.recoveryBit === 1 ? '1b' : '1c';

  it('recovers the signer through the backend, once', () => {
    const backend = countingBackend();
    expect(recoverDigestSigner(digest, `0x${word(r)}${word(s)}${v}`, backend)).toEqual({ ok: true, address: account.address });
    expect(backend.calls).toBe(1);
  });

  it('derives the address from whatever key the backend recovers', () => {
    const other = privateKeyToAccount(generatePrivateKey());
    const backend = countingBackend(hexDecode(other.publicKey.slice(2)));
    expect(recoverDigestSigner(digest, `0x${word(r)}${word(s)}${v}`, backend)).toEqual({ ok: true, address: other.address });
  });

  it.each([
    ['v = 0', `0x${word(r)}${word(s)}00`, 'v'],
    ['v = 29', `0x${word(r)}${word(s)}1d`, 'v'],
    ['high s (the malleable twin)', `0x${word(r)}${word(N - s)}${flippedV}`, 'high_s'],
    ['r = 0', `0x${word(0n)}${word(s)}${v}`, 'invalid'],
    ['s = 0', `0x${word(r)}${word(0n)}${v}`, 'invalid'],
    ['r = n', `0x${word(N)}${word(s)}${v}`, 'invalid'],
    ['s = n', `0x${word(r)}${word(N)}${v}`, 'invalid'],
    ['s = 2^256 - 1', `0x${word(r)}${'f'.repeat(64)}${v}`, 'invalid'],
    ['64 bytes', `0x${word(r)}${word(s)}`, 'length'],
  ])('refuses %s in its own checks, before the backend runs', (_case, signature, failure) => {
    const backend = countingBackend();
    expect(recoverDigestSigner(digest, signature, backend)).toEqual({ ok: false, failure });
    expect(backend.calls).toBe(0);
  });

  it('refuses as invalid when the backend recovers no key', () => {
    const backend: Secp256k1Backend = { ...nobleSecp256k1, recoverPublicKey: () => undefined };
    expect(recoverDigestSigner(digest, `0x${word(r)}${word(s)}${v}`, backend)).toEqual({ ok: false, failure: 'invalid' });
  });

  it('accepts s = (n-1)/2 exactly and reaches the backend', () => {
    const backend = countingBackend();
    recoverDigestSigner(digest, `0x${word(r)}${word(HALF_N)}${v}`, backend);
    expect(backend.calls).toBe(1);
  });

  it('throws a TypeError for a digest that is not 32 bytes (a caller bug)', () => {
    expect(() => recoverDigestSigner(digest.subarray(1), `0x${word(r)}${word(s)}${v}`)).toThrow(TypeError);
  });
});

describe('evmSignerWithBackend', () => {
  it('has the key’s address and signs digests and typed data exactly as the viem account does', async () => {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    const signer = evmSignerWithBackend(key, nobleSecp256k1);
    expect(signer.address).toBe(account.address);
    const hash: Hex = keccak256(randomBytes(16));
    expect(await signer.sign?.({ hash })).toBe(await account.sign({ hash }));
    const typedData = {
      domain: { name: 'Tollgate', version: '1', chainId: 8453 },
      types: { Ping: [{ name: 'nonce', type: 'uint256' }] },
      primaryType: 'Ping',
      message: { nonce: 7n },
    } as const;
    expect(await signer.signTypedData(typedData)).toBe(await account.signTypedData(typedData));
  });

  it('signs through the backend it was given', async () => {
    let calls = 0;
    const backend: Secp256k1Backend = {
      ...nobleSecp256k1,
      sign: (digest, privateKey) => {
        calls += 1;
        return nobleSecp256k1.sign(digest, privateKey);
      },
    };
    await evmSignerWithBackend(generatePrivateKey(), backend).sign?.({ hash: keccak256('0x01') });
    expect(calls).toBe(1);
  });

  it('refuses a key outside [1, n-1] and a hash that is not 32 bytes', async () => {
    expect(() => evmSignerWithBackend(`0x${word(0n)}`, nobleSecp256k1)).toThrow(TypeError);
    expect(() => evmSignerWithBackend(`0x${word(N)}`, nobleSecp256k1)).toThrow(TypeError);
    expect(() => evmSignerWithBackend('0x1234', nobleSecp256k1)).toThrow(TypeError);
    await expect(evmSignerWithBackend(generatePrivateKey(), nobleSecp256k1).sign?.({ hash: '0x1234' })).rejects.toThrow(TypeError);
  });
});
