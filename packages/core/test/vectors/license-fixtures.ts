/**
 * Deterministic keys, ids and sample messages for the license test vectors, unit tests, fuzz test and
 * benchmark. Every secret is `SHA-256("tollgate/license/v1/test-vectors/" + name)`: public test material,
 * never for production.
 */
import { createNobleEd25519Signer, hexEncode, sha256, type Signer } from '@tollgate/core';
import { utf8Encode } from '@tollgate/core/crypto';
import {
  createRootSigner,
  encodeEpochCertificateRequest,
  rootKeyDigest,
  rootKeyIdHex,
  signEpochCertificate,
  type ArtifactPayloads,
  type DeviceRequestKind,
  type EpochKey,
  type LicenseMessageKind,
  type LicenseMessages,
  type UnsignedDeviceRequest,
} from '@tollgate/core/license';

/** The verification time of every vector: 2026-01-01T00:00:00Z. */
export const vectorNow = 1_767_225_600;
const day = 86_400;

/** The product most vectors are bound to, and a second product for cross-product cases. */
export const vectorProductId = 'acme-editor';
export const otherProductId = 'other-app';

/** 32 deterministic bytes named `name`. */
export function vectorBytes(name: string, length = 32): Uint8Array {
  return sha256(utf8Encode(`tollgate/license/v1/test-vectors/${name}`)).slice(0, length);
}

export interface RootFixture {
  readonly name: string;
  readonly seed: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly keyIdHex: string;
  readonly digest: Uint8Array;
  readonly signer: Signer;
}

function root(name: string): RootFixture {
  const seed = vectorBytes(name);
  const signer = createRootSigner(seed);
  return { name, seed, publicKey: signer.publicKey, keyIdHex: rootKeyIdHex(signer.publicKey), digest: rootKeyDigest(signer.publicKey), signer };
}

/** Pinned current and next roots, and one root nobody pins. */
export const vectorRoots = {
  current: root('root-current'),
  next: root('root-next'),
  unpinned: root('root-unpinned'),
} as const;

/** What clients of the vectors pin. */
export const vectorPins: readonly Uint8Array[] = [vectorRoots.current.publicKey, vectorRoots.next.publicKey];

export interface EpochFixture extends EpochKey {
  readonly name: string;
  readonly seed: Uint8Array;
  readonly root: RootFixture;
  readonly signer: Signer;
}

function epoch(name: string, issuer: RootFixture, notBefore: number, notAfter: number, productScope?: string): EpochFixture {
  const seed = vectorBytes(name);
  const epochId = vectorBytes(`${name}/epoch-id`, 8);
  const epochIdHex = hexEncode(epochId);
  const signer = createNobleEd25519Signer({ privateKey: seed, kid: epochIdHex });
  return { name, seed, root: issuer, signer, epochId, epochIdHex, publicKey: signer.publicKey, notBefore, notAfter, ...(productScope === undefined ? {} : { productScope }) };
}

/**
 * Epochs: a global one and a product-scoped one valid now, a successor under the next root that is not
 * valid yet, an expired one, and one that no keyset lists.
 */
export const vectorEpochs = {
  global: epoch('epoch-global', vectorRoots.current, vectorNow - 30 * day, vectorNow + 60 * day),
  acme: epoch('epoch-acme', vectorRoots.current, vectorNow - 10 * day, vectorNow + 80 * day, vectorProductId),
  successor: epoch('epoch-successor', vectorRoots.next, vectorNow + 50 * day, vectorNow + 140 * day),
  expired: epoch('epoch-expired', vectorRoots.current, vectorNow - 120 * day, vectorNow - 30 * day),
  unlisted: epoch('epoch-unlisted', vectorRoots.current, vectorNow - 30 * day, vectorNow + 60 * day),
} as const;

export type EpochName = keyof typeof vectorEpochs;

/** The certificate of an epoch fixture, signed by its root. */
export function epochCertificateFor(fixture: EpochFixture, issuer: RootFixture = fixture.root): Promise<Uint8Array> {
  const request = encodeEpochCertificateRequest({
    protoVersion: 1,
    epochId: fixture.epochId,
    publicKey: fixture.publicKey,
    notBefore: fixture.notBefore,
    notAfter: fixture.notAfter,
    ...(fixture.productScope === undefined ? {} : { productScope: fixture.productScope }),
  });
  return signEpochCertificate(request, issuer.signer);
}

/** The device of the request vectors. */
export const vectorDevice = (() => {
  const seed = vectorBytes('device-1');
  const signer = createNobleEd25519Signer({ privateKey: seed, kid: 'device-1' });
  return { name: 'device-1', seed, publicKey: signer.publicKey, signer };
})();

export const vectorIds = {
  licenseId: vectorBytes('license-id', 16),
  machineId: vectorBytes('machine-id', 16),
  secondLicenseId: vectorBytes('license-id-2', 16),
  fingerprint: vectorBytes('fingerprint'),
  nonce: vectorBytes('client-nonce'),
  serverNonce: vectorBytes('server-nonce'),
  kemKey: vectorBytes('device-kem-key'),
  accessToken: vectorBytes('access-token'),
  refreshToken: vectorBytes('refresh-token'),
  buildFingerprint: vectorBytes('build-fingerprint'),
  releaseId: vectorBytes('release-id', 16),
};

const entitlements = {
  features: ['export.pdf', 'sync'],
  limits: new Map([
    ['projects', 25],
    ['seats', -1],
  ]),
  tier: 'pro',
  catalogVersion: 3,
};

const clientInfo = { appVersion: '2.4.1', sdkVersion: '0.1.0', os: 'linux', arch: 'x64', buildFingerprint: vectorIds.buildFingerprint, releaseId: vectorIds.releaseId };

/** One sample payload per artifact kind (the certificate sample is the global epoch's). */
export async function samplePayloads(): Promise<{ [Kind in Exclude<keyof ArtifactPayloads, 'epoch-certificate'>]: ArtifactPayloads[Kind] }> {
  const credential = sampleCredential();
  return {
    'machine-credential': credential,
    'validation-ticket': {
      protoVersion: 1,
      licenseId: vectorIds.licenseId,
      machineId: vectorIds.machineId,
      nonceEcho: vectorIds.nonce,
      serverNonce: vectorIds.serverNonce,
      serverTime: vectorNow,
      refreshAfter: vectorNow + 7 * day,
      graceSeconds: 14 * day,
      expiresAt: vectorNow + 365 * day,
      revocationEpoch: 3,
      verdict: 0,
      securityFloor: 1,
      entitlements,
      releaseStatus: 0,
      refreshNow: true,
      telemetryWindow: vectorNow - (vectorNow % day),
    },
    'kill-order': {
      protoVersion: 1,
      licenseId: vectorIds.licenseId,
      machineId: vectorIds.machineId,
      nonceEcho: vectorIds.nonce,
      serverTime: vectorNow,
      reason: 1,
      userMessage: 'This license was revoked.',
      revocationEpoch: 4,
    },
    'offline-key': {
      protoVersion: 1,
      bundleId: vectorBytes('bundle-id', 16),
      licenseId: vectorIds.licenseId,
      releaseId: vectorBytes('release-id', 16),
      issuedAt: vectorNow,
      expiresAt: vectorNow + 30 * 86_400,
      maxSeats: 2,
      tier: 'pro',
      features: ['export', 'sync'],
      entitlementDigest: vectorBytes('entitlement-digest'),
      revocationEpoch: 4,
      versionMin: '1.0.0',
    },
    'audit-anchor': { protoVersion: 1, vendorId: vectorBytes('vendor-id', 16), seq: 42, head: vectorBytes('audit-head'), anchoredAt: vectorNow },
    'revocation-batch': {
      protoVersion: 1,
      seq: 4,
      issuedAt: vectorNow,
      licenseIds: [vectorIds.licenseId, vectorIds.secondLicenseId].sort((a, b) => (hexEncode(a) < hexEncode(b) ? -1 : 1)),
      machineIds: [vectorIds.machineId],
      epochIds: [vectorEpochs.expired.epochId],
    },
    'offline-response': {
      protoVersion: 1,
      nonceEcho: vectorIds.nonce,
      credential: new Uint8Array(0), // replaced by the signed credential in buildLicenseVectors
      certificates: [],
      serverTime: vectorNow,
      validUntil: vectorNow + 7 * day,
    },
  };
}

function sampleCredential(): ArtifactPayloads['machine-credential'] {
  return {
    protoVersion: 1,
    licenseId: vectorIds.licenseId,
    machineId: vectorIds.machineId,
    fingerprint: vectorIds.fingerprint,
    devicePublicKey: vectorDevice.publicKey,
    nonceEcho: vectorIds.nonce,
    issuedAt: vectorNow,
    refreshAfter: vectorNow + 7 * day,
    graceSeconds: 14 * day,
    entitlements,
    revocationEpoch: 3,
    securityFloor: 1,
    mode: 0,
  };
}

/** One sample unsigned request per device request kind. */
export function sampleRequests(): { [Kind in DeviceRequestKind]: UnsignedDeviceRequest<Kind> } {
  const activation = {
    protoVersion: 1 as const,
    productId: vectorProductId,
    credential: { licenseKey: 'TG1-7K3QM-2WX9D-PL4RT-88HNV' },
    fingerprint: vectorIds.fingerprint,
    devicePublicKey: vectorDevice.publicKey,
    deviceKemKey: vectorIds.kemKey,
    nonce: vectorIds.nonce,
    clientTime: vectorNow + 12,
    clientInfo,
  };
  const session = { protoVersion: 1 as const, productId: vectorProductId, licenseId: vectorIds.licenseId, machineId: vectorIds.machineId, nonce: vectorIds.nonce, clientTime: vectorNow + 12 };
  return {
    'activation-request': { ...activation, deviceAttributes: new Map([['os_family', 'linux']]) },
    'offline-request': activation,
    'validate-request': {
      protoVersion: 1,
      productId: vectorProductId,
      licenseId: vectorIds.licenseId,
      machineId: vectorIds.machineId,
      fingerprint: vectorIds.fingerprint,
      nonce: vectorIds.nonce,
      clientTime: vectorNow + 12,
      knownRevocationEpoch: 3,
      knownSecurityFloor: 1,
      clientInfo,
      telemetry: {
        consentVersion: 2,
        windowStart: vectorNow - 7 * day,
        sessionCount: 12,
        sessionDurationHistogram: [3, 5, 3, 1],
        featureHits: new Map([
          ['export.pdf', 4],
          ['sync', 40],
        ]),
        daysActive: 5,
      },
    },
    'heartbeat-request': session,
    'deactivate-request': session,
  };
}

/** One sample per unsigned message kind (the keyset sample is built with real certificates elsewhere). */
export function sampleMessages(): { [Kind in Exclude<LicenseMessageKind, 'keyset'>]: LicenseMessages[Kind] } {
  return {
    'epoch-certificate-request': {
      protoVersion: 1,
      epochId: vectorEpochs.acme.epochId,
      publicKey: vectorEpochs.acme.publicKey,
      notBefore: vectorEpochs.acme.notBefore,
      notAfter: vectorEpochs.acme.notAfter,
      productScope: vectorProductId,
    },
    'error-body': { code: 5000, message: 'The keyset is not ready yet.', retryAfter: 1 },
    'heartbeat-response': { protoVersion: 1, ok: true, nextAfter: vectorNow + 900, nonceEcho: vectorIds.nonce },
    'deactivate-response': { protoVersion: 1, ok: true, nonceEcho: vectorIds.nonce },
    'login-request': { protoVersion: 1, productId: vectorProductId, email: 'ada@example.com', password: 'correct horse battery staple' },
    'refresh-request': { protoVersion: 1, refreshToken: vectorIds.refreshToken },
    'logout-request': { protoVersion: 1, refreshToken: vectorIds.refreshToken },
    'account-session': {
      protoVersion: 1,
      accessToken: vectorIds.accessToken,
      refreshToken: vectorIds.refreshToken,
      accessExpiresAt: vectorNow + 3600,
      refreshExpiresAt: vectorNow + 30 * day,
    },
  };
}
