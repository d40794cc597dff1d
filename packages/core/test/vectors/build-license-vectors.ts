/**
 * Builds `license-v1.json` deterministically from the fixtures (fixed seeds, ids, nonces and times;
 * Ed25519 is deterministic), so regenerating it must give byte-identical JSON. Run
 * `node scripts/generate-license-vectors.mjs` to rewrite the file, `--check` to compare.
 */
import { hexDecode, hexEncode, type Signer } from '@tollgate/core';
import { decodeCanonical, encodeCanonical } from '@tollgate/core/cbor';
import {
  deviceRequestSpecs,
  encodeKeyset,
  encodeLicenseMessage,
  encodeProtectedHeader,
  encodeSign1,
  licenseContentType,
  licenseExternalAad,
  prepareArtifact,
  requestProofKey,
  sigStructure,
  type ArtifactKind,
  type ArtifactPayloads,
  type DeviceRequestKind,
  type DeviceRequests,
  type LicenseMessageKind,
} from '@tollgate/core/license';
import { cborDiagnostic } from './cbor-diagnostic';
import {
  epochCertificateFor,
  sampleMessages,
  samplePayloads,
  sampleRequests,
  vectorDevice,
  vectorEpochs,
  vectorNow,
  vectorProductId,
  vectorRoots,
  type EpochFixture,
} from './license-fixtures';
import { buildNegativeVectors } from './negative-vectors';
import type { ArtifactVector, KeysetVector, LicenseVectorFile, MessageVector, RequestVector, VectorEpoch } from './vector-format';

const about = [
  'Known-answer vectors of the Tollgate license protocol v1 (docs/protocol.md). Bytes are lower-case hex, times unix seconds.',
  'Keys: every seed is SHA-256("tollgate/license/v1/test-vectors/" + name). Public test material: never use it in production.',
  'artifacts: canonical payload (with its CBOR diagnostic), protected header, external_aad = domain bytes, sig_structure = ["Signature1", protected, external_aad, payload], the Ed25519 signature over it, and the untagged COSE_Sign1 envelope. Verify each with the named signer (a root for epoch certificates, an epoch otherwise) at `now`. Verifiers allow 300 s of clock skew: an epoch is accepted while not_before - 300 <= now < not_after + 300. Revocation batches are the exception to "the epoch is valid at now": their epoch window is checked exactly at the signed issued_at (key 2), which must not lie more than 300 s after now, so batches signed by an epoch that has expired since stay verifiable.',
  'device_requests: the request without key 15 (signed_payload) is the detached COSE payload; proof = Ed25519(device key, proof_message); encoded is the full request with the proof at key 15.',
  'messages: canonical encodings of the unsigned messages. keysets: skip every certificate whose kid names no root of pinned_roots, verify all the others against pinned_roots (one failure refuses the keyset), refuse a keyset whose certificates all were skipped (unpinned_root), and split the epochs into unexpired and expired at now (expired once now >= not_after + 300); expect the listed epochs or the error.',
  'negative: each input must fail with expected_error. check=artifact: verify as kind for product_id with the keys of the listed epochs (and revoked_epochs) at now; check=certificate: verify against pinned_roots and refuse a certificate expired at now (a successor not valid yet is accepted); check=device_request: decode as kind and check the proof with the device key.',
];

/** Signs prepared artifact bytes and records every intermediate value. */
async function artifactVector<Kind extends ArtifactKind>(
  name: string,
  kind: Kind,
  payload: ArtifactPayloads[Kind],
  signer: { name: string; signer: Signer },
  productId: string | undefined,
): Promise<ArtifactVector> {
  const prepared = prepareArtifact(kind, payload, hexDecode(signer.signer.kid), productId);
  const message = sigStructure(prepared.protectedBytes, prepared.externalAad, prepared.payload);
  const signature = await signer.signer.sign(message);
  return {
    name,
    kind,
    product_id: productId ?? null,
    signer: signer.name,
    payload_diagnostic: cborDiagnostic(decodeCanonical(prepared.payload)),
    payload: hexEncode(prepared.payload),
    protected: hexEncode(prepared.protectedBytes),
    external_aad: hexEncode(prepared.externalAad),
    sig_structure: hexEncode(message),
    signature: hexEncode(signature),
    envelope: hexEncode(encodeSign1(prepared.protectedBytes, prepared.payload, signature)),
  };
}

async function requestVector<Kind extends DeviceRequestKind>(name: string, kind: Kind, request: Omit<DeviceRequests[Kind], 'proof'>): Promise<RequestVector> {
  const spec = deviceRequestSpecs[kind];
  const unsigned = spec.toCbor({ ...request, proof: new Uint8Array(64) } as DeviceRequests[Kind]);
  unsigned.delete(requestProofKey);
  const signedPayload = encodeCanonical(unsigned);
  const protectedBytes = encodeProtectedHeader({ alg: -8, contentType: licenseContentType(kind), productId: request.productId });
  const externalAad = licenseExternalAad(kind, request.productId);
  const message = sigStructure(protectedBytes, externalAad, signedPayload);
  const proof = await vectorDevice.signer.sign(message);
  const full = encodeCanonical(spec.toCbor({ ...request, proof } as DeviceRequests[Kind]));
  return {
    name,
    kind,
    device: vectorDevice.name,
    request_diagnostic: cborDiagnostic(decodeCanonical(full)),
    signed_payload: hexEncode(signedPayload),
    protected: hexEncode(protectedBytes),
    external_aad: hexEncode(externalAad),
    proof_message: hexEncode(message),
    proof: hexEncode(proof),
    encoded: hexEncode(full),
  };
}

function epochEntry(fixture: EpochFixture, certificate: Uint8Array): VectorEpoch {
  return {
    seed: hexEncode(fixture.seed),
    epoch_id: fixture.epochIdHex,
    public_key: hexEncode(fixture.publicKey),
    not_before: fixture.notBefore,
    not_after: fixture.notAfter,
    product_scope: fixture.productScope ?? null,
    root: fixture.root.name,
    certificate: hexEncode(certificate),
  };
}

/** The certificates of every epoch fixture, by fixture name. */
export async function vectorCertificates(): Promise<Record<string, Uint8Array>> {
  const entries = await Promise.all(Object.values(vectorEpochs).map(async (fixture) => [fixture.name, await epochCertificateFor(fixture)] as const));
  return Object.fromEntries(entries);
}

/**
 * Builds the whole vector file.
 *
 * @returns The vector file as an object.
 */
export async function buildLicenseVectors(): Promise<LicenseVectorFile> {
  const certificates = await vectorCertificates();
  const certificateOf = (fixture: EpochFixture) => certificates[fixture.name] as Uint8Array;
  const payloads = await samplePayloads();
  const { global, acme, successor, expired, unlisted } = vectorEpochs;

  const artifacts: ArtifactVector[] = [];
  for (const fixture of Object.values(vectorEpochs)) {
    const { epochId, publicKey, notBefore, notAfter, productScope } = fixture;
    artifacts.push(
      await artifactVector(
        `epoch-certificate/${fixture.name}`,
        'epoch-certificate',
        { protoVersion: 1, epochId, publicKey, notBefore, notAfter, ...(productScope === undefined ? {} : { productScope }), rootKeyDigest: fixture.root.digest },
        { name: fixture.root.name, signer: fixture.root.signer },
        undefined,
      ),
    );
  }
  const acmeSigner = { name: acme.name, signer: acme.signer };
  const globalSigner = { name: global.name, signer: global.signer };
  const credential = await artifactVector('machine-credential', 'machine-credential', payloads['machine-credential'], acmeSigner, vectorProductId);
  artifacts.push(
    credential,
    await artifactVector('machine-credential/global-epoch', 'machine-credential', payloads['machine-credential'], globalSigner, vectorProductId),
    await artifactVector('validation-ticket', 'validation-ticket', payloads['validation-ticket'], acmeSigner, vectorProductId),
    await artifactVector('kill-order', 'kill-order', payloads['kill-order'], acmeSigner, vectorProductId),
    await artifactVector('revocation-batch', 'revocation-batch', payloads['revocation-batch'], globalSigner, undefined),
    await artifactVector(
      'revocation-batch/issued-within-skew',
      'revocation-batch',
      { ...payloads['revocation-batch'], issuedAt: vectorNow + 300 },
      globalSigner,
      undefined,
    ),
    await artifactVector(
      'revocation-batch/expired-epoch',
      'revocation-batch',
      { ...payloads['revocation-batch'], seq: 1, issuedAt: expired.notBefore + 86_400 },
      { name: expired.name, signer: expired.signer },
      undefined,
    ),
    await artifactVector(
      'offline-response',
      'offline-response',
      { ...payloads['offline-response'], credential: hexDecode(credential.envelope), certificates: [certificateOf(acme), certificateOf(global)] },
      acmeSigner,
      vectorProductId,
    ),
  );

  const requests = sampleRequests();
  const device_requests: RequestVector[] = [];
  for (const kind of Object.keys(requests) as DeviceRequestKind[]) device_requests.push(await requestVector(kind, kind, requests[kind]));

  const samples = sampleMessages();
  const messages: MessageVector[] = (Object.keys(samples) as Exclude<LicenseMessageKind, 'keyset'>[]).map((kind) => {
    const encoded = encodeLicenseMessage(kind, samples[kind] as never);
    return { name: kind, kind, diagnostic: cborDiagnostic(decodeCanonical(encoded)), encoded: hexEncode(encoded) };
  });

  const pins = [vectorRoots.current.name, vectorRoots.next.name];
  const keysets: KeysetVector[] = [
    {
      name: 'keyset/current-next-and-expired',
      encoded: hexEncode(encodeKeyset({ protoVersion: 1, certificates: [global, acme, successor, expired].map(certificateOf), revocationEpoch: 3 })),
      pinned_roots: pins,
      now: vectorNow,
      expected: { epochs: [global.epochIdHex, acme.epochIdHex, successor.epochIdHex], expired: [expired.epochIdHex], revocation_epoch: 3 },
    },
    {
      name: 'keyset/unpinned-certificate-skipped',
      encoded: hexEncode(
        encodeKeyset({ protoVersion: 1, certificates: [certificateOf(global), certificateOf(successor), await epochCertificateFor(unlisted, vectorRoots.unpinned)], revocationEpoch: 1 }),
      ),
      pinned_roots: pins,
      now: vectorNow,
      expected: { epochs: [global.epochIdHex, successor.epochIdHex], expired: [], revocation_epoch: 1 },
    },
    {
      name: 'keyset/after-root-rotation',
      encoded: hexEncode(encodeKeyset({ protoVersion: 1, certificates: [expired, global, successor].map(certificateOf), revocationEpoch: 5 })),
      pinned_roots: [vectorRoots.next.name],
      now: vectorNow,
      expected: { epochs: [successor.epochIdHex], expired: [], revocation_epoch: 5 },
    },
    {
      name: 'keyset/empty',
      encoded: hexEncode(encodeKeyset({ protoVersion: 1, certificates: [], revocationEpoch: 0 })),
      pinned_roots: pins,
      now: vectorNow,
      expected: { epochs: [], expired: [], revocation_epoch: 0 },
    },
  ];

  const refused = await buildNegativeVectors({ certificates, artifacts, device_requests, keysets });

  return {
    format: 'tollgate-license-test-vectors',
    version: 1,
    about,
    now: vectorNow,
    roots: Object.fromEntries(
      Object.values(vectorRoots).map((root) => [
        root.name,
        { seed: hexEncode(root.seed), public_key: hexEncode(root.publicKey), key_id: root.keyIdHex, digest: hexEncode(root.digest) },
      ]),
    ),
    epochs: Object.fromEntries(Object.values(vectorEpochs).map((fixture) => [fixture.name, epochEntry(fixture, certificateOf(fixture))])),
    devices: { [vectorDevice.name]: { seed: hexEncode(vectorDevice.seed), public_key: hexEncode(vectorDevice.publicKey) } },
    artifacts,
    device_requests,
    messages,
    keysets: [...keysets, ...refused.keysets],
    negative: refused.negative,
  };
}

/**
 * The exact text of `license-v1.json`: two-space JSON and a final newline.
 *
 * @returns The file contents.
 */
export async function renderLicenseVectors(): Promise<string> {
  return `${JSON.stringify(await buildLicenseVectors(), null, 2)}\n`;
}
