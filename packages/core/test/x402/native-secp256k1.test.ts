import { randomBytes } from 'node:crypto';
import { hexEncode } from '@tollgate/core';
import { evmSignerWithBackend, nobleSecp256k1, recoverDigestSigner, type Secp256k1Backend } from '@tollgate/core/x402';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadNativeSecp256k1, loadSecp256k1Backend } from '@tollgate/core/node';

// Thousands of vectors: libsecp256k1 must be a drop-in replacement for noble, byte for byte.
const VECTORS = 2_000;
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const word = (value: bigint) => value.toString(16).padStart(64, '0');
const randomKey = () => {
  for (;;) {
    const key = new Uint8Array(randomBytes(32));
    const scalar = BigInt(`0x${hexEncode(key)}`);
    if (scalar > 0n && scalar < N) return key;
  }
};
const signatureHex = (signed: { signature: Uint8Array; recoveryBit: 0 | 1 }) => `0x${hexEncode(signed.signature)}${signed.recoveryBit === 1 ? '1c' : '1b'}`;
// Digests at the edges of the scalar range: zero, n-1, n and above (reduced modulo n by ECDSA), all ones.
const edgeDigests = [0n, 1n, N - 1n, N, N + 1n, (1n << 256n) - 1n].map((value) => Uint8Array.from(Buffer.from(word(value), 'hex')));

let native: Secp256k1Backend;

beforeAll(async () => {
  const loaded = await loadNativeSecp256k1();
  // The project's machines are linux-x64 glibc, for which the package ships a prebuilt binding.
  if (!loaded.ok) throw new Error(`libsecp256k1 did not load (${loaded.reason}): run npm ci`);
  native = loaded.backend;
});

describe('libsecp256k1 backend (optional secp256k1 package)', () => {
  it('loads, passes its known-answer check and is what loadSecp256k1Backend chooses', async () => {
    const lines: string[] = [];
    const chosen = await loadSecp256k1Backend({ info: (_object, message) => lines.push(message), warn: (_object, message) => lines.push(`warn: ${message}`) });
    expect(native.name).toBe('libsecp256k1');
    expect(chosen.name).toBe('libsecp256k1');
    expect(lines).toEqual(['secp256k1: libsecp256k1 (native)']);
  });

  it(`signs byte-identically to noble (RFC 6979, low s, same recovery bit) over ${VECTORS} random keys and digests, and the edges`, () => {
    const mismatches: string[] = [];
    const digests = [...edgeDigests, ...Array.from({ length: VECTORS }, () => new Uint8Array(randomBytes(32)))];
    for (const digest of digests) {
      const key = randomKey();
      const expected = signatureHex(nobleSecp256k1.sign(digest, key));
      const actual = signatureHex(native.sign(digest, key));
      if (actual !== expected) mismatches.push(`key ${hexEncode(key)} digest ${hexEncode(digest)}: ${actual} != ${expected}`);
    }
    expect(mismatches).toEqual([]);
  });

  it(`recovers the same address as noble over ${VECTORS} random signatures, and the signer's own`, () => {
    const mismatches: string[] = [];
    const digests = [...edgeDigests, ...Array.from({ length: VECTORS }, () => new Uint8Array(randomBytes(32)))];
    for (const [index, digest] of digests.entries()) {
      const key = randomKey();
      const signature = signatureHex(nobleSecp256k1.sign(digest, key));
      const viaNative = recoverDigestSigner(digest, signature, native);
      const viaNoble = recoverDigestSigner(digest, signature, nobleSecp256k1);
      // The signer's own address (viem's derivation) on every tenth vector: noble itself is checked too.
      const signer = index % 10 === 0 ? privateKeyToAccount(`0x${hexEncode(key)}`).address : viaNoble.ok && viaNoble.address;
      if (!viaNative.ok || viaNative.address !== signer || JSON.stringify(viaNative) !== JSON.stringify(viaNoble)) {
        mismatches.push(`${hexEncode(digest)} ${signature}: ${JSON.stringify(viaNative)} / ${JSON.stringify(viaNoble)}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it(`gives the same outcome as noble for ${VECTORS} random signatures (about half with an r off the curve)`, () => {
    const mismatches: string[] = [];
    const outcomes = { recovered: 0, invalid: 0 };
    for (let index = 0; index < VECTORS; index += 1) {
      const digest = new Uint8Array(randomBytes(32));
      // Random r and s below n/2 with v 27/28: they pass our checks, so the backend decides.
      const r = BigInt(`0x${hexEncode(randomBytes(32))}`) % N || 1n;
      const s = (BigInt(`0x${hexEncode(randomBytes(32))}`) % (N >> 1n)) + 1n;
      const signature = `0x${word(r)}${word(s)}${index % 2 === 0 ? '1b' : '1c'}`;
      const viaNative = recoverDigestSigner(digest, signature, native);
      const viaNoble = recoverDigestSigner(digest, signature, nobleSecp256k1);
      if (JSON.stringify(viaNative) !== JSON.stringify(viaNoble)) mismatches.push(`${hexEncode(digest)} ${signature}`);
      if (viaNative.ok) outcomes.recovered += 1;
      else if (viaNative.failure === 'invalid') outcomes.invalid += 1;
    }
    expect(mismatches).toEqual([]);
    // Both branches were exercised: keys recovered from random points, and r values off the curve.
    expect(outcomes.recovered).toBeGreaterThan(VECTORS / 4);
    expect(outcomes.invalid).toBeGreaterThan(VECTORS / 4);
  });

  it('refuses an r that is not the x-coordinate of a curve point as invalid, like noble', () => {
    const signature = `0x${word(5n)}${word(1n)}1b`;
    expect(recoverDigestSigner(new Uint8Array(32).fill(9), signature, native)).toEqual({ ok: false, failure: 'invalid' });
  });

  it('makes a gateway signer whose digest signatures equal the viem account’s', async () => {
    for (let index = 0; index < 50; index += 1) {
      const key = generatePrivateKey();
      const hash = `0x${hexEncode(randomBytes(32))}` as const;
      expect(await evmSignerWithBackend(key, native).sign?.({ hash })).toBe(await privateKeyToAccount(key).sign({ hash }));
    }
  });

  it('falls back to noble, with an info line, when the package cannot be imported', async () => {
    const lines: string[] = [];
    const logger = { info: (_object: object, message: string) => lines.push(message), warn: (_object: object, message: string) => lines.push(`warn: ${message}`) };
    const chosen = await loadSecp256k1Backend(logger, { importBinding: () => Promise.reject(new Error('No native build was found')) });
    expect(chosen).toBe(nobleSecp256k1);
    expect(lines).toEqual(['secp256k1: noble (the optional secp256k1 package is not loadable here)']);
  });

  it('falls back to noble, with a warning, when a binding loads but answers differently', async () => {
    const lines: string[] = [];
    const logger = { info: (_object: object, message: string) => lines.push(message), warn: (_object: object, message: string) => lines.push(`warn: ${message}`) };
    const wrong = {
      ecdsaSign: () => ({ signature: new Uint8Array(64).fill(1), recid: 0 }),
      ecdsaRecover: () => new Uint8Array(65),
    };
    expect(await loadNativeSecp256k1({ importBinding: async () => ({ default: wrong }) })).toEqual({ ok: false, reason: 'mismatch' });
    expect(await loadSecp256k1Backend(logger, { importBinding: async () => ({ default: wrong }) })).toBe(nobleSecp256k1);
    expect(lines).toEqual(['warn: secp256k1: the native binding disagreed with noble; using noble']);
    expect(await loadNativeSecp256k1({ importBinding: async () => ({ default: {} }) })).toEqual({ ok: false, reason: 'missing' });
  });

  it('throws on a key outside [1, n-1] instead of signing', () => {
    expect(() => native.sign(new Uint8Array(32).fill(1), new Uint8Array(32))).toThrow();
    expect(() => native.sign(new Uint8Array(32).fill(1), Uint8Array.from(Buffer.from(word(N), 'hex')))).toThrow();
  });
});
