/**
 * The negative vectors: inputs every implementation must refuse, each with the reason it must name.
 */
import { hexDecode, hexEncode, type Signer } from '@tollgate/core';
import { encodeCanonical, type CborKey, type CborValue } from '@tollgate/core/cbor';
import {
  artifactKinds,
  decodeDeviceRequest,
  deviceRequestSpecs,
  decodeSign1,
  encodeKeyset,
  encodeProtectedHeader,
  encodeSign1,
  licenseContentType,
  licenseExternalAad,
  prepareArtifact,
  sigStructure,
  signDeviceRequest,
  type ArtifactErrorReason,
} from '@tollgate/core/license';
import { epochCertificateFor, otherProductId, samplePayloads, sampleRequests, vectorDevice, vectorEpochs, vectorNow, vectorProductId, vectorRoots } from './license-fixtures';
import type { ArtifactVector, KeysetVector, NegativeVector, RequestVector } from './vector-format';

const defaultKeys = [vectorEpochs.global.name, vectorEpochs.acme.name, vectorEpochs.successor.name, vectorEpochs.expired.name];
const pins = [vectorRoots.current.name, vectorRoots.next.name];

interface Inputs {
  certificates: Record<string, Uint8Array>;
  artifacts: ArtifactVector[];
  device_requests: RequestVector[];
  keysets: KeysetVector[];
}

function bytesOf(vectors: { name: string; envelope?: string; encoded?: string }[], name: string): Uint8Array {
  const vector = vectors.find((entry) => entry.name === name);
  if (vector === undefined) throw new Error(`no vector ${name}`);
  return hexDecode((vector.envelope ?? vector.encoded) as string);
}

/** Signs arbitrary protected/payload bytes, so encodings our own encoder would never emit can be tested. */
async function signRaw(signer: Signer, protectedBytes: Uint8Array, externalAad: Uint8Array, payload: Uint8Array): Promise<Uint8Array> {
  return encodeSign1(protectedBytes, payload, await signer.sign(sigStructure(protectedBytes, externalAad, payload)));
}

function withParts(envelope: Uint8Array, change: { protectedBytes?: Uint8Array; payload?: Uint8Array; signature?: Uint8Array }): Uint8Array {
  const parts = decodeSign1(envelope);
  return encodeSign1(change.protectedBytes ?? parts.protectedBytes, change.payload ?? parts.payload, change.signature ?? parts.signature);
}

function flipLastByte(bytes: Uint8Array): Uint8Array {
  const copy = bytes.slice();
  copy[copy.length - 1] = (copy[copy.length - 1] as number) ^ 0x01;
  return copy;
}

function concat(...chunks: (Uint8Array | number[])[]): Uint8Array {
  return Uint8Array.from(chunks.flatMap((chunk) => Array.from(chunk)));
}

/**
 * Builds the negative artifact, certificate and device-request vectors, and the refused keysets.
 *
 * @param inputs - The positive vectors and certificates they mutate.
 * @returns Negative vectors and keyset vectors that must fail.
 */
export async function buildNegativeVectors(inputs: Inputs): Promise<{ negative: NegativeVector[]; keysets: KeysetVector[] }> {
  const { global, acme, successor, expired, unlisted } = vectorEpochs;
  const payloads = await samplePayloads();
  const ticket = bytesOf(inputs.artifacts, 'validation-ticket');
  const ticketParts = decodeSign1(ticket);
  const globalCredential = bytesOf(inputs.artifacts, 'machine-credential/global-epoch');
  const negative: NegativeVector[] = [];

  const artifactCase = (name: string, description: string, kind: string, input: Uint8Array, expected: ArtifactErrorReason, extra: Partial<NegativeVector> = {}) =>
    negative.push({
      name,
      description,
      check: 'artifact',
      kind,
      product_id: kind === 'revocation-batch' ? null : vectorProductId,
      input: hexEncode(input),
      keys: defaultKeys,
      revoked_epochs: [],
      pinned_roots: [],
      device: null,
      now: vectorNow,
      expected_error: expected,
      ...extra,
    });
  const signTicket = async (signer: Signer, productId: string) => {
    const prepared = prepareArtifact('validation-ticket', payloads['validation-ticket'], hexDecode(signer.kid), productId);
    return signRaw(signer, prepared.protectedBytes, prepared.externalAad, prepared.payload);
  };
  const ticketHeader = (change: Partial<{ contentType: string; productId: string; kid: Uint8Array }>) =>
    encodeProtectedHeader({ alg: -8, contentType: licenseContentType('validation-ticket'), kid: acme.epochId, productId: vectorProductId, ...change });

  artifactCase('cross-kind-replay', 'A valid validation ticket presented as a kill order.', 'kill-order', ticket, 'wrong_kind');
  artifactCase(
    'cross-kind-replay/rewritten-content-type',
    'A validation ticket whose header was rewritten to say kill order: the domain differs, so the signature fails.',
    'kill-order',
    withParts(ticket, { protectedBytes: encodeProtectedHeader({ alg: -8, contentType: licenseContentType('kill-order'), kid: acme.epochId, productId: vectorProductId }) }),
    'bad_signature',
  );
  artifactCase('cross-product-replay', "Product acme-editor's ticket presented to other-app.", 'validation-ticket', ticket, 'wrong_domain', { product_id: otherProductId });
  artifactCase(
    'cross-product-replay/rewritten-product',
    'A credential signed by a global epoch for acme-editor whose product label was rewritten to other-app.',
    'machine-credential',
    withParts(globalCredential, {
      protectedBytes: encodeProtectedHeader({ alg: -8, contentType: licenseContentType('machine-credential'), kid: global.epochId, productId: otherProductId }),
    }),
    'bad_signature',
    { product_id: otherProductId },
  );
  artifactCase('tampered-payload', 'One bit of the ticket payload flipped.', 'validation-ticket', withParts(ticket, { payload: flipLastByte(ticketParts.payload) }), 'bad_signature');
  artifactCase(
    'tampered-header',
    'The kid rewritten to another valid epoch (the global one).',
    'validation-ticket',
    withParts(ticket, { protectedBytes: ticketHeader({ kid: global.epochId }) }),
    'bad_signature',
  );
  artifactCase('truncated-signature', 'The last signature byte removed (63 bytes).', 'validation-ticket', withParts(ticket, { signature: ticketParts.signature.slice(0, 63) }), 'bad_signature');
  artifactCase('unknown-epoch', 'Signed by an epoch the keys do not list.', 'validation-ticket', await signTicket(unlisted.signer, vectorProductId), 'unknown_key');
  artifactCase('expired-epoch', 'Signed by an epoch whose window ended before now.', 'validation-ticket', await signTicket(expired.signer, vectorProductId), 'expired_epoch');
  artifactCase(
    'expired-epoch/beyond-skew',
    'Signed by the global epoch, verified 300 s after its window ended (the skew allowance is used up).',
    'validation-ticket',
    await signTicket(global.signer, vectorProductId),
    'expired_epoch',
    { now: global.notAfter + 300 },
  );
  artifactCase(
    'not-yet-valid-epoch/beyond-skew',
    'Signed by the successor epoch, verified 301 s before its window opens (more than the skew allowance).',
    'validation-ticket',
    await signTicket(successor.signer, vectorProductId),
    'epoch_not_yet_valid',
    { now: successor.notBefore - 301 },
  );
  artifactCase('not-yet-valid-epoch', 'Signed by the successor epoch before its window opens.', 'validation-ticket', await signTicket(successor.signer, vectorProductId), 'epoch_not_yet_valid');
  artifactCase('revoked-epoch', 'Signed by an epoch the revocation feed revoked.', 'validation-ticket', ticket, 'revoked_epoch', { revoked_epochs: [acme.name] });
  artifactCase('epoch-scope/other-product', 'The acme-editor epoch signing for other-app.', 'validation-ticket', await signTicket(acme.signer, otherProductId), 'wrong_domain', {
    product_id: otherProductId,
  });
  {
    const prepared = prepareArtifact('revocation-batch', payloads['revocation-batch'], acme.epochId, undefined);
    artifactCase(
      'epoch-scope/global-kind',
      'A product-scoped epoch signing a global revocation batch.',
      'revocation-batch',
      await signRaw(acme.signer, prepared.protectedBytes, prepared.externalAad, prepared.payload),
      'wrong_domain',
    );
    const outside = prepareArtifact('revocation-batch', { ...payloads['revocation-batch'], issuedAt: vectorNow }, expired.epochId, undefined);
    artifactCase(
      'revocation-batch/issued-after-epoch',
      'A revocation batch dated after its (expired) epoch ended.',
      'revocation-batch',
      await signRaw(expired.signer, outside.protectedBytes, outside.externalAad, outside.payload),
      'expired_epoch',
    );
    const future = prepareArtifact('revocation-batch', { ...payloads['revocation-batch'], issuedAt: vectorNow + 86_400 }, global.epochId, undefined);
    artifactCase(
      'revocation-batch/dated-in-the-future',
      'A revocation batch dated after the verification time.',
      'revocation-batch',
      await signRaw(global.signer, future.protectedBytes, future.externalAad, future.payload),
      'invalid_payload',
    );
    const beyondSkew = prepareArtifact('revocation-batch', { ...payloads['revocation-batch'], issuedAt: vectorNow + 301 }, global.epochId, undefined);
    artifactCase(
      'revocation-batch/dated-beyond-skew',
      'A revocation batch dated 301 s after the verification time (more than the skew allowance).',
      'revocation-batch',
      await signRaw(global.signer, beyondSkew.protectedBytes, beyondSkew.externalAad, beyondSkew.payload),
      'invalid_payload',
    );
    const labelled = encodeProtectedHeader({ alg: -8, contentType: licenseContentType('revocation-batch'), kid: global.epochId, productId: vectorProductId });
    artifactCase('global-kind-with-product', 'A revocation batch whose header carries a product label.', 'revocation-batch', await signRaw(global.signer, labelled, prepared.externalAad, prepared.payload), 'bad_encoding');
  }
  {
    const header = ticketHeader({ contentType: 'application/vnd.tollgate.unknown+cbor' });
    artifactCase('unknown-kind', 'A header content type that names no kind.', 'validation-ticket', await signRaw(acme.signer, header, licenseExternalAad('validation-ticket', vectorProductId), ticketParts.payload), 'unknown_kind');
  }
  const parts = ticketParts;
  const bstr = (bytes: Uint8Array) => encodeCanonical(bytes);
  artifactCase('tag-18', 'The envelope wrapped in the COSE_Sign1 tag (18): only the untagged form is canonical.', 'validation-ticket', concat([0xd2], ticket), 'bad_encoding');
  artifactCase('long-array-head', 'The 4-item array head written as 0x98 0x04.', 'validation-ticket', concat([0x98, 0x04], ticket.subarray(1)), 'bad_encoding');
  artifactCase(
    'long-protected-length',
    'The protected header length written with two bytes (0x59).',
    'validation-ticket',
    concat([0x84, 0x59, 0x00, parts.protectedBytes.length], parts.protectedBytes, [0xa0], bstr(parts.payload), bstr(parts.signature)),
    'bad_encoding',
  );
  artifactCase('indefinite-array', 'The envelope as an indefinite-length array.', 'validation-ticket', concat([0x9f], ticket.subarray(1), [0xff]), 'bad_encoding');
  artifactCase(
    'unprotected-header',
    'A kid in the unprotected header: it must be empty.',
    'validation-ticket',
    encodeCanonical([parts.protectedBytes, new Map<CborKey, CborValue>([[4, acme.epochId]]), parts.payload, parts.signature]),
    'bad_encoding',
  );
  {
    const longAlg = concat(ticketHeader({}).subarray(0, 2), [0x38, 0x07], ticketHeader({}).subarray(3));
    artifactCase('non-canonical-protected-header', 'A signed protected header with alg written as 0x38 0x07.', 'validation-ticket', await signRaw(acme.signer, longAlg, licenseExternalAad('validation-ticket', vectorProductId), parts.payload), 'bad_encoding');
    const es256 = encodeCanonical(new Map<CborKey, CborValue>([[1, -7], [3, licenseContentType('validation-ticket')], [4, acme.epochId], [-65537, vectorProductId]]));
    artifactCase('other-algorithm', 'A header naming ES256 (-7): only EdDSA (-8) is accepted.', 'validation-ticket', await signRaw(acme.signer, es256, licenseExternalAad('validation-ticket', vectorProductId), parts.payload), 'bad_encoding');
  }
  {
    const aad = licenseExternalAad('validation-ticket', vectorProductId);
    const longKey = concat([parts.payload[0] as number, 0x18, 0x00], parts.payload.subarray(2));
    artifactCase('signed-non-canonical-payload', 'A correctly signed payload whose first key is written 0x18 0x00.', 'validation-ticket', await signRaw(acme.signer, ticketHeader({}), aad, longKey), 'bad_encoding');
    const missing = encodeCanonical(new Map([...artifactKinds['validation-ticket'].spec.toCbor(payloads['validation-ticket'])].filter(([key]) => key !== 3)));
    artifactCase('signed-invalid-payload', 'A correctly signed ticket without its nonce echo (key 3).', 'validation-ticket', await signRaw(acme.signer, ticketHeader({}), aad, missing), 'invalid_payload');
  }
  artifactCase('empty-input', 'Zero bytes.', 'validation-ticket', new Uint8Array(0), 'bad_encoding');

  const certificateCase = (name: string, description: string, input: Uint8Array, expected: ArtifactErrorReason) =>
    negative.push({ name, description, check: 'certificate', kind: 'epoch-certificate', product_id: null, input: hexEncode(input), keys: [], revoked_epochs: [], pinned_roots: pins, device: null, now: vectorNow, expected_error: expected });
  const unpinnedCertificate = await epochCertificateFor(global, vectorRoots.unpinned);
  certificateCase('certificate/unpinned-root', 'An epoch certificate signed by a root that is not pinned.', unpinnedCertificate, 'unpinned_root');
  {
    const prepared = prepareArtifact(
      'epoch-certificate',
      { protoVersion: 1, epochId: global.epochId, publicKey: global.publicKey, notBefore: global.notBefore, notAfter: global.notAfter, rootKeyDigest: vectorRoots.next.digest },
      hexDecode(vectorRoots.current.keyIdHex),
      undefined,
    );
    const mismatched = await signRaw(vectorRoots.current.signer, prepared.protectedBytes, prepared.externalAad, prepared.payload);
    certificateCase('certificate/digest-names-other-root', 'Signed by the current root but naming the next root as issuer.', mismatched, 'unpinned_root');
  }
  const globalCertificate = inputs.certificates[global.name] as Uint8Array;
  certificateCase('certificate/tampered', 'One bit of the certificate payload flipped.', withParts(globalCertificate, { payload: flipLastByte(decodeSign1(globalCertificate).payload) }), 'bad_signature');
  certificateCase('certificate/expired', 'A certificate whose window ended before now.', inputs.certificates[expired.name] as Uint8Array, 'expired_epoch');
  certificateCase('certificate/wrong-kind', 'A validation ticket offered as a certificate.', ticket, 'wrong_kind');

  const requestCase = (name: string, description: string, kind: string, input: Uint8Array, expected: ArtifactErrorReason) =>
    negative.push({ name, description, check: 'device_request', kind, product_id: vectorProductId, input: hexEncode(input), keys: [], revoked_epochs: [], pinned_roots: [], device: 'device-1', now: vectorNow, expected_error: expected });
  const heartbeat = bytesOf(inputs.device_requests, 'heartbeat-request');
  requestCase('request/cross-kind-replay', 'A heartbeat request (and its proof) replayed as a deactivate request.', 'deactivate-request', heartbeat, 'bad_signature');
  {
    const decoded = decodeDeviceRequest('heartbeat-request', heartbeat);
    const tampered = deviceRequestSpecs['heartbeat-request'].toCbor({ ...decoded, clientTime: decoded.clientTime + 1 });
    requestCase('request/tampered-field', 'A heartbeat request whose client time changed after signing.', 'heartbeat-request', encodeCanonical(tampered), 'bad_signature');
    requestCase('request/non-canonical', 'A heartbeat request whose map head is written 0xb8 0x07.', 'heartbeat-request', concat([0xb8, 0x07], heartbeat.subarray(1)), 'bad_encoding');
  }
  const requests = sampleRequests();
  requestCase('request/other-key', 'A heartbeat proof made with a key other than the device key.', 'heartbeat-request', await signDeviceRequest('heartbeat-request', requests['heartbeat-request'], unlisted.signer), 'bad_signature');
  requestCase(
    'request/offline-with-account-token',
    'An offline request carrying an account token (offline activation takes license keys only).',
    'offline-request',
    await signDeviceRequest('activation-request', { ...requests['activation-request'], credential: { accountToken: hexDecode('11'.repeat(32)) } }, vectorDevice.signer),
    'invalid_payload',
  );
  {
    const activation = decodeDeviceRequest('activation-request', bytesOf(inputs.device_requests, 'activation-request'));
    const withUnknownKey = deviceRequestSpecs['activation-request'].toCbor(activation);
    withUnknownKey.set(12, 0);
    requestCase('request/unknown-key', 'An activation request with an unknown key (12).', 'activation-request', encodeCanonical(withUnknownKey), 'invalid_payload');
  }

  const keysetCase = (name: string, certificates: Uint8Array[], expected: ArtifactErrorReason): KeysetVector => ({
    name,
    encoded: hexEncode(encodeKeyset({ protoVersion: 1, certificates, revocationEpoch: 1 })),
    pinned_roots: pins,
    now: vectorNow,
    expected: { error: expected },
  });
  const keysets: KeysetVector[] = [
    keysetCase('keyset/no-pinned-certificate', [unpinnedCertificate], 'unpinned_root'),
    keysetCase('keyset/tampered-certificate', [withParts(globalCertificate, { payload: flipLastByte(decodeSign1(globalCertificate).payload) })], 'bad_signature'),
    keysetCase('keyset/duplicate-epoch', [globalCertificate, globalCertificate], 'invalid_payload'),
    {
      name: 'keyset/wrong-proto-version',
      encoded: hexEncode(encodeCanonical(new Map<CborKey, CborValue>([[0, 2], [1, []], [2, 0]]))),
      pinned_roots: pins,
      now: vectorNow,
      expected: { error: 'invalid_payload' },
    },
  ];
  return { negative, keysets };
}
