/**
 * Fuzzes every license decoder and verifier with seeded random bytes, random canonical CBOR, and
 * mutations of the published vectors: each call must return a result or throw an `ArtifactError`,
 * never anything else.
 */
import { describe, expect, it } from 'vitest';
import { hexDecode, hexEncode } from '@tollgate/core';
import { decodeCanonical, encodeCanonical, type CborKey, type CborValue } from '@tollgate/core/cbor';
import {
  decodeArtifactPayload,
  decodeDeviceRequest,
  decodeEpochCertificateRequest,
  decodeKeyset,
  decodeLicenseMessage,
  decodeSign1,
  deviceRequestSpecs,
  encodeSign1,
  inspectArtifact,
  isArtifactError,
  licenseMessageSpecs,
  splitCborSequence,
  verifyArtifact,
  verifyDeviceProof,
  verifyEpochCertificate,
  verifyKeyset,
  type ArtifactKind,
  type DeviceRequestKind,
  type LicenseMessageKind,
} from '@tollgate/core/license';
import { seededRandom, type SeededRandom } from '@tollgate/core/testing';
import { loadLicenseVectors } from '../vectors/check-license-vectors';
import { vectorDevice, vectorEpochs, vectorNow, vectorPins, vectorProductId } from '../vectors/license-fixtures';

function randomCbor(random: SeededRandom, depth: number): CborValue {
  const choice = random.int(depth > 3 ? 5 : 8);
  switch (choice) {
    case 0:
      return random.int(3) === 0 ? -random.int(100_000) - 1 : random.pick([0, 1, 23, 24, 255, 65_536, 2 ** 32, Number.MAX_SAFE_INTEGER, random.int(2 ** 31)]);
    case 1:
      return random.bytes(random.pick([0, 8, 16, 31, 32, 33, 64, random.int(80)]));
    case 2:
      return random.pick(['', 'acme-editor', 'linux', 'x'.repeat(random.int(600)), 'Ünïcödé', 'application/vnd.tollgate.kill-order+cbor']);
    case 3:
      return random.pick([true, false, null]);
    case 4:
      return random.pick([2n ** 63n, -(2n ** 63n)]);
    case 5:
      return Array.from({ length: random.int(6) }, () => randomCbor(random, depth + 1));
    default: {
      const map = new Map<CborKey, CborValue>();
      const size = random.int(12);
      for (let n = 0; n < size; n += 1) map.set(random.int(4) === 0 ? random.pick(['a', 'sync', 'export.pdf']) : random.int(18), randomCbor(random, depth + 1));
      return map;
    }
  }
}

function mutate(random: SeededRandom, seed: Uint8Array, seeds: readonly Uint8Array[]): Uint8Array {
  const bytes = Array.from(seed);
  const rounds = 1 + random.int(3);
  for (let round = 0; round < rounds; round += 1) {
    const at = random.int(Math.max(1, bytes.length));
    switch (random.int(7)) {
      case 0:
        bytes[at] = (bytes[at] ?? 0) ^ (1 << random.int(8));
        break;
      case 1:
        bytes[at] = random.int(256);
        break;
      case 2:
        bytes.length = random.int(bytes.length + 1);
        break;
      case 3:
        bytes.splice(at, 0, ...random.bytes(1 + random.int(8)));
        break;
      case 4:
        bytes.splice(at, 1 + random.int(16));
        break;
      case 5: {
        const other = random.pick(seeds);
        const from = random.int(other.length);
        bytes.splice(at, random.int(32), ...other.subarray(from, from + random.int(64)));
        break;
      }
      default:
        bytes[at] = random.pick([0x18, 0x19, 0x1a, 0x1b, 0x40, 0x58, 0x5f, 0x80, 0x9f, 0xa0, 0xbf, 0xc0, 0xd2, 0xf4, 0xf5, 0xf6, 0xf7, 0xf9, 0xfb, 0xff]);
    }
  }
  return Uint8Array.from(bytes);
}

/** Each decoder under test, taking raw bytes. */
const keys = { epochs: new Map([vectorEpochs.global, vectorEpochs.acme].map((epoch) => [epoch.epochIdHex, epoch])) };
const epochSignedKinds: Exclude<ArtifactKind, 'epoch-certificate'>[] = ['machine-credential', 'validation-ticket', 'kill-order', 'revocation-batch', 'offline-response'];
const decoders: Record<string, (bytes: Uint8Array) => unknown> = {
  decodeSign1,
  inspectArtifact,
  decodeKeyset,
  verifyKeyset: (bytes) => verifyKeyset(bytes, vectorPins, vectorNow),
  verifyEpochCertificate: (bytes) => verifyEpochCertificate(bytes, { pinnedRoots: vectorPins, at: vectorNow }),
  decodeEpochCertificateRequest,
  splitCborSequence: (bytes) => splitCborSequence(bytes).map((item) => inspectArtifact(item)),
  ...Object.fromEntries(
    epochSignedKinds.map((kind) => [
      `verifyArtifact(${kind})`,
      (bytes: Uint8Array) => verifyArtifact(bytes, kind, { keys, now: vectorNow, ...(kind === 'revocation-batch' ? {} : { productId: vectorProductId }) }),
    ]),
  ),
  ...Object.fromEntries(
    [...epochSignedKinds, 'epoch-certificate' as const].map((kind) => [`decodeArtifactPayload(${kind})`, (bytes: Uint8Array) => decodeArtifactPayload(kind, bytes)]),
  ),
  ...Object.fromEntries(
    (Object.keys(deviceRequestSpecs) as DeviceRequestKind[]).map((kind) => [
      `decodeDeviceRequest(${kind})+verifyDeviceProof`,
      (bytes: Uint8Array) => verifyDeviceProof(kind, decodeDeviceRequest(kind, bytes), vectorDevice.publicKey),
    ]),
  ),
  ...Object.fromEntries(
    (Object.keys(licenseMessageSpecs) as LicenseMessageKind[]).map((kind) => [`decodeLicenseMessage(${kind})`, (bytes: Uint8Array) => decodeLicenseMessage(kind, bytes)]),
  ),
};

/**
 * The decoders that check a signature: anything they accept must be one of the published vectors byte
 * for byte. A mutation that still verifies would mean two encodings of one signed message (malleability:
 * a replay cache keyed on bytes would miss it), or a signature check that looks at less than it should.
 */
const signatureCheckers = new Set(Object.keys(decoders).filter((name) => name.startsWith('verifyArtifact(') || name === 'verifyEpochCertificate' || name.endsWith('+verifyDeviceProof')));

function buildSeeds(): Uint8Array[] {
  const vectors = loadLicenseVectors();
  return [
    ...vectors.artifacts.flatMap((vector) => [vector.envelope, vector.payload, vector.protected]),
    ...vectors.device_requests.map((vector) => vector.encoded),
    ...vectors.messages.map((vector) => vector.encoded),
    ...vectors.keysets.map((vector) => vector.encoded),
    ...vectors.negative.map((vector) => vector.input),
  ].map(hexDecode);
}

function buildInputs(count: number): Uint8Array[] {
  const vectors = loadLicenseVectors();
  const seeds = buildSeeds();
  const random = seededRandom(0x7011_6a7e);
  const inputs: Uint8Array[] = [...seeds];
  while (inputs.length < count) {
    const mode = random.int(10);
    if (mode < 2) inputs.push(random.bytes(random.int(400)));
    else if (mode < 4) inputs.push(encodeCanonical(randomCbor(random, 0)));
    else if (mode < 5) {
      // A structurally valid envelope around random parts.
      const header = random.int(2) === 0 ? hexDecode(random.pick(vectors.artifacts).protected) : encodeCanonical(randomCbor(random, 1));
      inputs.push(encodeSign1(header, encodeCanonical(randomCbor(random, 0)), random.bytes(random.pick([64, 63, 0]))));
    } else if (mode < 6) {
      // A valid payload or request with one field replaced by a random value.
      const seed = decodeCanonical(hexDecode(random.pick([...vectors.artifacts.map((vector) => vector.payload), ...vectors.device_requests.map((vector) => vector.encoded)])));
      if (seed instanceof Map) {
        const map = new Map(seed);
        map.set(random.pick([...map.keys()]), randomCbor(random, 1));
        inputs.push(encodeCanonical(map));
      }
    } else inputs.push(mutate(random, random.pick(seeds), seeds));
  }
  return inputs;
}

describe('license decoders under fuzzing', () => {
  it('end every one of 6,000 random and mutated inputs in a typed result or an ArtifactError', () => {
    const inputs = buildInputs(6_000);
    expect(inputs.length).toBeGreaterThanOrEqual(5_000);
    const failures: string[] = [];
    const outcomes = { accepted: 0, refused: 0, verified: 0 };
    const seedHexes = new Set(buildSeeds().map(hexEncode));
    const forgeries: string[] = [];
    for (const [name, decode] of Object.entries(decoders)) {
      for (const input of inputs) {
        try {
          decode(input);
          outcomes.accepted += 1;
          if (signatureCheckers.has(name)) {
            outcomes.verified += 1;
            if (!seedHexes.has(hexEncode(input)) && forgeries.length < 5) forgeries.push(`${name} accepted a non-seed input: ${hexEncode(input).slice(0, 120)}`);
          }
        } catch (error) {
          if (isArtifactError(error)) outcomes.refused += 1;
          else if (failures.length < 5) failures.push(`${name}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // Whatever verifies is a published vector, byte for byte; and verified inputs exist, so this is no
    // vacuous check (the seeds verify under their own kinds).
    expect(forgeries).toEqual([]);
    expect(signatureCheckers.size).toBeGreaterThanOrEqual(7);
    expect(outcomes.verified).toBeGreaterThanOrEqual(10);
    // Both paths are exercised: the unmutated seeds decode, the mutations are refused.
    expect(outcomes.accepted).toBeGreaterThan(100);
    expect(outcomes.refused).toBeGreaterThan(100_000);
  });
});
