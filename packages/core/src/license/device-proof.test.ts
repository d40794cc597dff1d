import { describe, expect, it } from 'vitest';
import { encodeCanonical } from '@tollgate/core/cbor';
import {
  decodeDeviceRequest,
  deviceProofMessage,
  deviceRequestSpecs,
  isArtifactError,
  requestProofKey,
  signDeviceRequest,
  verifyDeviceProof,
  type DeviceRequestKind,
} from '@tollgate/core/license';
import { verifyEd25519Node } from '@tollgate/core/node';
import { longerHeadVariants } from '../../test/license/non-canonical';
import { otherProductId, sampleRequests, vectorDevice, vectorEpochs } from '../../test/vectors/license-fixtures';

const requests = sampleRequests();
const kinds = Object.keys(requests) as DeviceRequestKind[];

function reasonOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (isArtifactError(error)) return error.reason;
    throw error;
  }
  return undefined;
}

describe('device proofs of possession', () => {
  it('round-trips every request kind and verifies its proof with noble and Node verifiers', async () => {
    for (const kind of kinds) {
      const body = await signDeviceRequest(kind, requests[kind] as never, vectorDevice.signer);
      const decoded = decodeDeviceRequest(kind, body);
      expect({ ...decoded, proof: undefined }).toEqual({ ...requests[kind], proof: undefined });
      expect(decoded.proof).toHaveLength(64);
      verifyDeviceProof(kind, decoded, vectorDevice.publicKey);
      verifyDeviceProof(kind, decoded, vectorDevice.publicKey, verifyEd25519Node);
    }
  });

  it('signs the request without key 15, so the proof message ignores any proof already present', async () => {
    const body = await signDeviceRequest('heartbeat-request', requests['heartbeat-request'], vectorDevice.signer);
    const decoded = decodeDeviceRequest('heartbeat-request', body);
    expect(deviceProofMessage('heartbeat-request', decoded)).toEqual(deviceProofMessage('heartbeat-request', requests['heartbeat-request']));
    expect(requestProofKey).toBe(15);
  });

  it('binds kind, product and every field into the proof', async () => {
    const decoded = decodeDeviceRequest('validate-request', await signDeviceRequest('validate-request', requests['validate-request'], vectorDevice.signer));
    expect(reasonOf(() => verifyDeviceProof('validate-request', { ...decoded, productId: otherProductId }, vectorDevice.publicKey))).toBe('bad_signature');
    expect(reasonOf(() => verifyDeviceProof('validate-request', { ...decoded, knownRevocationEpoch: 2 }, vectorDevice.publicKey))).toBe('bad_signature');
    expect(reasonOf(() => verifyDeviceProof('validate-request', decoded, vectorEpochs.global.publicKey))).toBe('bad_signature');
  });

  it('accepts a request already decoded by the HTTP layer and rejects non-canonical encodings', async () => {
    const body = await signDeviceRequest('activation-request', requests['activation-request'], vectorDevice.signer);
    const viaMap = decodeDeviceRequest('activation-request', deviceRequestSpecs['activation-request'].toCbor(decodeDeviceRequest('activation-request', body)));
    expect(encodeCanonical(deviceRequestSpecs['activation-request'].toCbor(viaMap))).toEqual(body);
    for (const variant of longerHeadVariants(body)) expect(reasonOf(() => decodeDeviceRequest('activation-request', variant))).toBe('bad_encoding');
  });

  it('names the broken fields: proto version, credential choice, telemetry cap', async () => {
    const base = requests['activation-request'];
    await expect(signDeviceRequest('activation-request', { ...base, protoVersion: 2 as never }, vectorDevice.signer)).rejects.toThrow(/protoVersion \(key 0\)/);
    await expect(signDeviceRequest('activation-request', { ...base, credential: {} }, vectorDevice.signer)).rejects.toThrow(/exactly one of licenseKey or accountToken/);
    const bigTelemetry = { ...requests['validate-request'].telemetry!, featureHits: new Map(Array.from({ length: 60 }, (_, index) => [`feature.${index}`, index])) };
    await expect(signDeviceRequest('validate-request', { ...requests['validate-request'], telemetry: bigTelemetry }, vectorDevice.signer)).rejects.toThrow(/at most 512 bytes/);
    await expect(signDeviceRequest('offline-request', { ...base, credential: { accountToken: new Uint8Array(32) } }, vectorDevice.signer)).rejects.toThrow(/offline activation takes a license key/);
  });

  it('refuses unknown kinds as a programming error', () => {
    expect(() => decodeDeviceRequest('ping-request' as never, new Uint8Array([0xa0]))).toThrow(TypeError);
  });
});
