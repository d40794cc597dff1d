import { createNobleEd25519Signer } from '@tollgate/core';
import { decodeDeviceRequest, verifyArtifact, verifyDeviceProof, verifyEpochCertificate, verifyKeyset } from '@tollgate/core/license';
import { describeLicenseVectors } from '../vectors/check-license-vectors';

// Core's own verifiers, noble signatures.
describeLicenseVectors('core', {
  createSigner: (privateKey, kid) => createNobleEd25519Signer({ privateKey, kid }),
  verifyKeyset(bytes, pinnedRoots, now) {
    const keyset = verifyKeyset(bytes, pinnedRoots, now);
    return { epochIds: [...keyset.epochs.keys()], expiredEpochIds: [...keyset.expiredEpochs.keys()], revocationEpoch: keyset.revocationEpoch };
  },
  verifyArtifact: (bytes, kind, context) =>
    verifyArtifact(bytes, kind, {
      keys: { epochs: new Map(context.epochs.map((epoch) => [epoch.epochIdHex, epoch])) },
      ...(context.productId === undefined ? {} : { productId: context.productId }),
      now: context.now,
      revokedEpochIds: new Set(context.revokedEpochIds),
    }).payload,
  verifyEpochCertificate: (bytes, pinnedRoots, now) => verifyEpochCertificate(bytes, { pinnedRoots, at: now }),
  verifyDeviceRequest(kind, bytes, devicePublicKey) {
    const request = decodeDeviceRequest(kind, bytes);
    verifyDeviceProof(kind, request, devicePublicKey);
    return request;
  },
});
