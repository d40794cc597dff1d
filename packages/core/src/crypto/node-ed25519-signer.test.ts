import { verify as rawNodeVerify, createPublicKey } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { createNodeEd25519Signer, verifyEd25519Node } from './node-ed25519-signer';
import { createNobleEd25519Signer, hexDecode, hexEncode, randomBytes, verifyEd25519 } from './index';

type Point = InstanceType<typeof ed25519.Point>;
const Point = ed25519.Point;
const L = Point.Fn.ORDER;

/** Little-endian bytes → integer, as RFC 8032 reads scalars and hashes. */
function littleEndian(bytes: Uint8Array): bigint {
  return bytes.reduceRight((value, byte) => (value << 8n) | BigInt(byte), 0n);
}

function scalarBytes(value: bigint): Uint8Array {
  const bytes = new Uint8Array(32);
  for (let index = 0; index < 32; index++) bytes[index] = Number((value >> BigInt(8 * index)) & 0xffn);
  return bytes;
}

/** k = SHA-512(R || A || M) mod L over the exact encodings, as both verifiers compute it. */
function challenge(r: Uint8Array, publicKey: Uint8Array, message: Uint8Array): bigint {
  return littleEndian(sha512(Uint8Array.of(...r, ...publicKey, ...message))) % L;
}

/** OpenSSL's verdict with no pre-checks: what verifyEd25519Node would say without its strict byte checks. */
function rawOpenSslVerify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') }, format: 'jwk' });
  return rawNodeVerify(null, message, key, signature);
}

/** The torsion subgroup, derived from curve arithmetic alone: L·P for a random point P with an order-8 component. */
function torsionSubgroup(): Point[] {
  for (;;) {
    let candidate: Point;
    try {
      candidate = Point.fromBytes(randomBytes(32), false);
    } catch {
      continue; // not a point
    }
    const torsion = candidate.multiplyUnsafe(L - 1n).add(candidate); // [L]P keeps only the small-order part
    if (torsion.double().double().is0()) continue; // order below 8
    return Array.from({ length: 8 }, (_, k) => (k === 0 ? Point.ZERO : torsion.multiplyUnsafe(BigInt(k))));
  }
}

describe('createNodeEd25519Signer matches createNobleEd25519Signer', () => {
  it('produces byte-identical signatures for 100 random keys and messages, verified by both verifiers', async () => {
    for (let draw = 0; draw < 100; draw++) {
      const privateKey = randomBytes(32);
      const message = randomBytes(draw * 7);
      const noble = createNobleEd25519Signer({ privateKey, kid: `k${draw}` });
      const node = createNodeEd25519Signer({ privateKey, kid: `k${draw}` });
      expect(hexEncode(node.publicKey)).toBe(hexEncode(noble.publicKey));
      const [nobleSignature, nodeSignature] = await Promise.all([noble.sign(message), node.sign(message)]);
      expect(hexEncode(nodeSignature)).toBe(hexEncode(nobleSignature));
      expect(verifyEd25519(node.publicKey, message, nodeSignature)).toBe(true);
      expect(verifyEd25519Node(noble.publicKey, message, nobleSignature)).toBe(true);
      const tampered = message.length > 0 ? Uint8Array.of(...message.subarray(1), 0) : Uint8Array.of(0);
      expect(verifyEd25519(node.publicKey, tampered, nodeSignature)).toBe(false);
      expect(verifyEd25519Node(node.publicKey, tampered, nodeSignature)).toBe(false);
    }
  });

  it('returns plain Uint8Array values, not Buffers', async () => {
    const signer = createNodeEd25519Signer({ privateKey: randomBytes(32), kid: 'k' });
    expect(Object.getPrototypeOf(signer.publicKey)).toBe(Uint8Array.prototype);
    expect(Object.getPrototypeOf(await signer.sign(Uint8Array.of(1)))).toBe(Uint8Array.prototype);
  });
});

describe('strict verification (both verifiers)', () => {
  const verifiers = [verifyEd25519, verifyEd25519Node];
  const message = new TextEncoder().encode('edge');
  const identityR = Point.ZERO.toBytes();
  const zeroS = new Uint8Array(32);

  it('refuses every small-order public key, although OpenSSL alone accepts forgeries for them', () => {
    const subgroup = torsionSubgroup();
    expect(new Set(subgroup.map((point) => point.toHex())).size).toBe(8);
    for (const smallOrderKey of subgroup) {
      const publicKey = smallOrderKey.toBytes();
      // Forge S = 0 with R = -[k]A: the equation then holds for a key nobody holds a secret for.
      let forged: { signature: Uint8Array; forgedMessage: Uint8Array } | undefined;
      for (let attempt = 0; forged === undefined; attempt++) {
        const forgedMessage = Uint8Array.of(...message, attempt);
        for (const r of subgroup) {
          const k = challenge(r.toBytes(), publicKey, forgedMessage);
          if (r.add(smallOrderKey.multiplyUnsafe(k)).is0()) forged = { signature: Uint8Array.of(...r.toBytes(), ...zeroS), forgedMessage };
        }
      }
      expect(rawOpenSslVerify(publicKey, forged.forgedMessage, forged.signature)).toBe(true);
      for (const verify of verifiers) expect(verify(publicKey, forged.forgedMessage, forged.signature)).toBe(false);
    }
  });

  it('refuses non-canonical encodings of the public key', () => {
    const nonCanonicalKeys = [
      'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // identity, y = p + 1
      '0100000000000000000000000000000000000000000000000000000000000080', // identity with x = -0
      'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', // order 2 with x = -0
      'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', // y = p (order 4)
    ].map(hexDecode);
    const signature = Uint8Array.of(...identityR, ...zeroS);
    for (const publicKey of nonCanonicalKeys) {
      expect(ed25519.verify(signature, message, publicKey, { zip215: true })).toBe(true); // lenient rules accept
      for (const verify of verifiers) expect(verify(publicKey, message, signature)).toBe(false);
    }
    expect(rawOpenSslVerify(nonCanonicalKeys[0] as Uint8Array, message, signature)).toBe(true);
  });

  it('refuses S ≥ L (a malleated second encoding of a valid signature)', async () => {
    const signer = createNobleEd25519Signer({ privateKey: randomBytes(32), kid: 'k' });
    const signature = await signer.sign(message);
    const s = littleEndian(signature.subarray(32));
    for (const malleated of [s + L, L, L + 1n, (1n << 256n) - 1n]) {
      const bad = Uint8Array.of(...signature.subarray(0, 32), ...scalarBytes(malleated));
      for (const verify of verifiers) expect(verify(signer.publicKey, message, bad)).toBe(false);
    }
  });

  it('refuses a non-canonical encoding of R', () => {
    const seed = randomBytes(32);
    const { scalar, pointBytes: publicKey } = ed25519.utils.getExtendedPublicKey(seed);
    const r = hexDecode('eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f'); // identity, y = p + 1
    const s = (challenge(r, publicKey, message) * scalar) % L; // S·B = k·A, i.e. R is the identity
    const signature = Uint8Array.of(...r, ...scalarBytes(s));
    expect(ed25519.verify(signature, message, publicKey, { zip215: true })).toBe(true);
    for (const verify of verifiers) expect(verify(publicKey, message, signature)).toBe(false);
  });

  it('documents the one difference: a crafted R with a torsion residue passes the cofactored check only', () => {
    const seed = randomBytes(32);
    const { scalar, pointBytes: publicKey } = ed25519.utils.getExtendedPublicKey(seed);
    const [, orderEight] = torsionSubgroup();
    const nonce = littleEndian(randomBytes(64)) % L;
    const r = Point.BASE.multiply(nonce).add(orderEight as Point).toBytes();
    const s = (nonce + challenge(r, publicKey, message) * scalar) % L;
    const signature = Uint8Array.of(...r, ...scalarBytes(s));
    expect(verifyEd25519(publicKey, message, signature)).toBe(true); // [8]S·B = [8]R + [8]k·A
    expect(verifyEd25519Node(publicKey, message, signature)).toBe(false); // S·B ≠ R + k·A
  });
});
