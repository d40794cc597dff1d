/**
 * Trust chain hardening (issue #13, "First: make the trust chain safe"), the parts without a database:
 * purpose subkeys of LICENSE_MASTER_KEY, the version byte of sealed epoch keys, verify-after-sign, the
 * ASCII rule for entitlement names and the COSE `alg` decision. Each test fails on the code before it.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { createNobleEd25519Signer, hexDecode, hexEncode, type Signer } from '@tollgate/core';
import { decodeCanonical, encodeCanonical } from '@tollgate/core/cbor';
import { CryptoError } from '@tollgate/core/crypto';
import {
  ArtifactError,
  TrustChainError,
  coseEdDsa,
  decodeSign1,
  encodeProtectedHeader,
  encodeSign1,
  licenseExternalAad,
  openEpochPrivateKey,
  sealEpochPrivateKey,
  sigStructure,
  signArtifact,
  signEpochCertificate,
  verifyArtifact,
  type Entitlements,
} from '@tollgate/core/license';
import { deriveLicenseSubkey, licenseSubkeyLabels, licenseSubkeySalt } from '../../../src/license/admin/admin-keys';
import { epochKeySealVersion, isLegacySealedEpochKey, sealedEpochKeyLength } from '../../../src/license/epoch-key-seal';
import { entitlementNamePattern } from '../../../src/license/payloads/entitlements';
import { sortedTextListSchema } from '../../../src/license/schemas';
import { loadLicenseVectors } from '../../vectors/check-license-vectors';
import { samplePayloads, vectorBytes, vectorEpochs, vectorNow, vectorProductId } from '../../vectors/license-fixtures';

/** 0x00 0x01 … 0x1f: the master key of the known answers below. */
const katMasterKey = Uint8Array.from({ length: 32 }, (_, n) => n);

describe('purpose subkeys of LICENSE_MASTER_KEY (HKDF-SHA-256, salt "tollgate/license")', () => {
  it('match known answers computed with an independent RFC 5869 implementation (Python hmac)', () => {
    expect(licenseSubkeySalt).toBe('tollgate/license');
    expect(hexEncode(deriveLicenseSubkey(katMasterKey, 'tollgate/license/epoch-key-seal/v1'))).toBe('331da98565f7ef85435fd710192f91e3ac5b0194223b54bc92d1a618d4af2c2d');
    expect(hexEncode(deriveLicenseSubkey(katMasterKey, 'tollgate/license/alert-webhook/v1'))).toBe('aaaeda0b85929bb835e8ba510f2d2d3ddab5cc851d764e6157e019b162d49c2c');
    expect(hexEncode(deriveLicenseSubkey(katMasterKey, 'tollgate/license/admin-token-hash/v1'))).toBe('76e4b39898580b0cef04774cfa05d8077f571e45687b207b59cc5c3f864ed7ac');
  });

  it('registers every purpose once, alertSigning included, and gives each purpose its own key', () => {
    expect(licenseSubkeyLabels.epochKeySeal).toBe('tollgate/license/epoch-key-seal/v1');
    expect(licenseSubkeyLabels.alertSigning).toBe('tollgate/license/alert-webhook/v1');
    const labels = Object.values(licenseSubkeyLabels);
    expect(new Set(labels).size).toBe(labels.length);
    for (const label of labels) expect(label).toMatch(/^tollgate\/license\/[a-z-]+\/v\d+$/);
    const keys = labels.map((label) => hexEncode(deriveLicenseSubkey(katMasterKey, label)));
    expect(new Set(keys).size).toBe(labels.length);
    // No subkey is the master key itself.
    expect(keys).not.toContain(hexEncode(katMasterKey));
  });

  it('refuses a master key that is not 32 bytes and an empty purpose', () => {
    expect(() => deriveLicenseSubkey(new Uint8Array(31), licenseSubkeyLabels.epochKeySeal)).toThrow(TypeError);
    expect(() => deriveLicenseSubkey(katMasterKey, '')).toThrow(TypeError);
  });
});

describe('sealed epoch keys carry a format version', () => {
  const masterKey = vectorBytes('hardening-master-key');
  const epochId = vectorEpochs.global.epochId;
  const seed = vectorEpochs.global.seed;

  it('start with version 1 and are sealed under the epoch-key-seal subkey, never under the raw master key', () => {
    const sealed = sealEpochPrivateKey(masterKey, epochId, seed);
    expect(sealed.length).toBe(sealedEpochKeyLength);
    expect(sealedEpochKeyLength).toBe(73);
    expect(sealed[0]).toBe(epochKeySealVersion);
    expect(epochKeySealVersion).toBe(1);
    expect(openEpochPrivateKey(masterKey, epochId, sealed)).toEqual(seed);
    // The documented construction, rebuilt here: AAD = version ‖ label ‖ 0x00 ‖ epoch id.
    const label = new TextEncoder().encode('tollgate/license/v1/epoch-key-at-rest');
    const aad = Uint8Array.from([1, ...label, 0, ...epochId]);
    const nonce = sealed.subarray(1, 25);
    const subkey = deriveLicenseSubkey(masterKey, licenseSubkeyLabels.epochKeySeal);
    expect(xchacha20poly1305(subkey, nonce, aad).decrypt(sealed.subarray(25))).toEqual(seed);
    expect(() => xchacha20poly1305(masterKey, nonce, aad).decrypt(sealed.subarray(25))).toThrow();
  });

  it('refuses an unknown version with a clear error, even when the rest is intact', () => {
    const sealed = sealEpochPrivateKey(masterKey, epochId, seed);
    for (const version of [0, 2, 0xff]) {
      const relabelled = Uint8Array.from(sealed);
      relabelled[0] = version;
      let caught: unknown;
      try {
        openEpochPrivateKey(masterKey, epochId, relabelled);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(CryptoError);
      expect((caught as CryptoError).code).toBe('invalid_key');
      expect((caught as CryptoError).message).toMatch(/version 1/);
    }
    expect(() => openEpochPrivateKey(masterKey, epochId, sealed.subarray(0, 60))).toThrow(CryptoError);
  });

  it('still opens the unversioned form written before version 1 (72 bytes under the raw master key)', () => {
    const nonce = vectorBytes('legacy-nonce', 24);
    const label = new TextEncoder().encode('tollgate/license/v1/epoch-key-at-rest');
    const legacyAad = Uint8Array.from([...label, 0, ...epochId]);
    const legacy = Uint8Array.from([...nonce, ...xchacha20poly1305(masterKey, nonce, legacyAad).encrypt(seed)]);
    expect(legacy.length).toBe(72);
    expect(isLegacySealedEpochKey(legacy)).toBe(true);
    expect(isLegacySealedEpochKey(sealEpochPrivateKey(masterKey, epochId, seed))).toBe(false);
    expect(openEpochPrivateKey(masterKey, epochId, legacy)).toEqual(seed);
    expect(() => openEpochPrivateKey(vectorBytes('other-master-key'), epochId, legacy)).toThrow(CryptoError);
  });
});

/** A signer whose device returns a corrupted signature (a KMS/HSM fault), or signs with another key. */
function faulty(signer: Signer, fault: 'flip' | 'other-key'): Signer {
  const other = createNobleEd25519Signer({ privateKey: vectorBytes('hsm-wrong-key'), kid: signer.kid });
  return {
    kid: signer.kid,
    alg: signer.alg,
    publicKey: signer.publicKey,
    async sign(message: Uint8Array) {
      if (fault === 'other-key') return other.sign(message);
      const signature = Uint8Array.from(await signer.sign(message));
      signature[10] = (signature[10] as number) ^ 0x01;
      return signature;
    },
  };
}

async function refusal(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

describe('verify after signing', () => {
  it('signArtifact fails loudly when the signer returns a signature that does not verify', async () => {
    const payloads = await samplePayloads();
    for (const fault of ['flip', 'other-key'] as const) {
      const signer = faulty(vectorEpochs.acme.signer, fault);
      const error = await refusal(() => signArtifact('validation-ticket', payloads['validation-ticket'], { signer, productId: vectorProductId }));
      expect(error).toBeInstanceOf(TrustChainError);
      expect(error).toMatchObject({ code: 'invalid_signer', details: { kid: vectorEpochs.acme.epochIdHex, problem: 'signature' } });
    }
    // The same call with the healthy signer succeeds: the check is not refusing everything.
    const good = await signArtifact('validation-ticket', payloads['validation-ticket'], { signer: vectorEpochs.acme.signer, productId: vectorProductId });
    expect(verifyArtifact(good, 'validation-ticket', { keys: { epochs: new Map([[vectorEpochs.acme.epochIdHex, vectorEpochs.acme]]) }, productId: vectorProductId, now: vectorNow }).epoch.epochIdHex).toBe(
      vectorEpochs.acme.epochIdHex,
    );
  });

  it('an explicit verifier is used when given, and its "no" is final', async () => {
    const payloads = await samplePayloads();
    const error = await refusal(() => signArtifact('kill-order', payloads['kill-order'], { signer: vectorEpochs.acme.signer, productId: vectorProductId, verify: () => false }));
    expect(error).toMatchObject({ code: 'invalid_signer' });
  });

  it('a root on a faulty token never yields an epoch certificate', async () => {
    const root = vectorEpochs.global.root;
    const request = {
      protoVersion: 1 as const,
      epochId: vectorEpochs.global.epochId,
      publicKey: vectorEpochs.global.publicKey,
      notBefore: vectorEpochs.global.notBefore,
      notAfter: vectorEpochs.global.notAfter,
    };
    const error = await refusal(() => signEpochCertificate(request, faulty(root.signer, 'flip')));
    expect(error).toMatchObject({ code: 'invalid_signer' });
  });
});

describe('entitlement names are visible ASCII, so every language orders them alike', () => {
  // U+FF5E is one UTF-16 unit 0xFF5E, UTF-8 ef bd 9e; U+1F600 is the pair d83d de00, UTF-8 f0 9f 98 80:
  // JavaScript's `<` puts the emoji first, a UTF-8 byte comparison (Go, Rust, C) puts it last.
  const utf16Order = ['\u{1F600}', '\uFF5E'];
  const utf8Order = ['\uFF5E', '\u{1F600}'];

  it('the two orders really differ for these names', () => {
    expect([...utf8Order].sort()).toEqual(utf16Order);
    expect(Buffer.compare(Buffer.from(utf8Order[0] as string), Buffer.from(utf8Order[1] as string))).toBeLessThan(0);
  });

  it('signing refuses such names in either order, as features or as limit names', async () => {
    const payloads = await samplePayloads();
    const ticket = payloads['validation-ticket'];
    const granted = ticket.entitlements as Entitlements;
    for (const features of [utf16Order, utf8Order, ['exporté']]) {
      const payload = { ...ticket, entitlements: { ...granted, features } };
      const error = await refusal(() => signArtifact('validation-ticket', payload, { signer: vectorEpochs.acme.signer, productId: vectorProductId }));
      expect(error).toBeInstanceOf(ArtifactError);
      expect(error).toMatchObject({ reason: 'invalid_payload' });
    }
    const limits = new Map([['\uFF5E', 1]]);
    const error = await refusal(() =>
      signArtifact('validation-ticket', { ...ticket, entitlements: { ...granted, limits } }, { signer: vectorEpochs.acme.signer, productId: vectorProductId }),
    );
    expect(error).toMatchObject({ reason: 'invalid_payload' });
  });

  it('verifiers refuse a correctly signed ticket whose names are not ASCII (a server of another language)', async () => {
    const signed = decodeSign1(await signArtifact('validation-ticket', (await samplePayloads())['validation-ticket'], { signer: vectorEpochs.acme.signer, productId: vectorProductId }));
    // Re-sign the payload with the features replaced, bypassing the encoder's checks.
    const payload = decodeCanonical(signed.payload) as Map<number, unknown>;
    const entitlements = new Map(payload.get(findEntitlementsKey(payload)) as Map<number, unknown>);
    entitlements.set(0, utf16Order);
    payload.set(findEntitlementsKey(payload), entitlements);
    const payloadBytes = encodeCanonical(payload as never);
    const protectedBytes = encodeProtectedHeader({ alg: coseEdDsa, contentType: 'application/vnd.tollgate.validation-ticket+cbor', kid: vectorEpochs.acme.epochId, productId: vectorProductId });
    const signature = await vectorEpochs.acme.signer.sign(sigStructure(protectedBytes, licenseExternalAad('validation-ticket', vectorProductId), payloadBytes));
    const envelope = encodeSign1(protectedBytes, payloadBytes, signature);
    const keys = { epochs: new Map([[vectorEpochs.acme.epochIdHex, vectorEpochs.acme]]) };
    expect(() => verifyArtifact(envelope, 'validation-ticket', { keys, productId: vectorProductId, now: vectorNow })).toThrow(expect.objectContaining({ reason: 'invalid_payload' }));
  });

  it('accepts visible ASCII, for which UTF-16 and UTF-8 orders agree', () => {
    expect(entitlementNamePattern.test('export.pdf')).toBe(true);
    expect(entitlementNamePattern.test('x'.repeat(128))).toBe(true);
    for (const bad of ['', ' lead', 'x'.repeat(129), '\uFF5E', 'tab\t']) expect(entitlementNamePattern.test(bad)).toBe(false);
  });

  it('other sorted text lists (offline-key features) are ordered by UTF-8 bytes, as every other language compares them', () => {
    const list = sortedTextListSchema(v.string(), 10);
    expect(v.is(list, utf8Order)).toBe(true);
    expect(v.is(list, utf16Order)).toBe(false);
    expect(v.is(list, ['a', 'a'])).toBe(false);
  });
});

/** The payload key whose value is the entitlements map (the one holding key 0 = features). */
function findEntitlementsKey(payload: Map<number, unknown>): number {
  for (const [key, value] of payload) if (value instanceof Map && Array.isArray(value.get(0)) && value.has(2)) return key;
  throw new Error('no entitlements in the sample ticket');
}

describe('COSE alg decision: -8 (EdDSA), see docs/decisions.md "License: trust chain hardening"', () => {
  it('every known-answer artifact and device request carries alg -8 and nothing else', () => {
    const vectors = loadLicenseVectors();
    expect(coseEdDsa).toBe(-8);
    const headers = [...vectors.artifacts.map((vector) => vector.protected), ...vectors.device_requests.map((vector) => vector.protected)];
    expect(headers.length).toBeGreaterThanOrEqual(13);
    for (const header of headers) {
      // Canonical header maps start with label 1 (alg): a1…a4 map head, 01, 27 (= -8).
      expect(header.slice(2, 6)).toBe('0127');
    }
  });

  it('an artifact whose header says -19 (RFC 9864 Ed25519) is refused, even with a valid signature', async () => {
    const ticket = decodeSign1(await signArtifact('kill-order', (await samplePayloads())['kill-order'], { signer: vectorEpochs.acme.signer, productId: vectorProductId }));
    const header = hexDecode(hexEncode(ticket.protectedBytes).replace(/^(a[1-9])0127/, '$10132'));
    expect(hexEncode(header).slice(2, 6)).toBe('0132');
    const signature = await vectorEpochs.acme.signer.sign(sigStructure(header, licenseExternalAad('kill-order', vectorProductId), ticket.payload));
    const keys = { epochs: new Map([[vectorEpochs.acme.epochIdHex, vectorEpochs.acme]]) };
    expect(() => verifyArtifact(encodeSign1(header, ticket.payload, signature), 'kill-order', { keys, productId: vectorProductId, now: vectorNow })).toThrow(
      expect.objectContaining({ reason: 'bad_encoding' }),
    );
  });
});
