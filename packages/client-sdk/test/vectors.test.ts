import { createNobleEd25519Signer } from '@tollgate/core';
import { decodeDeviceRequest, verifyDeviceProof, verifyEpochCertificate } from '@tollgate/core/license';
import { verifyArtifact, verifyKeyset } from '@tollgate/client-sdk';
import { describeLicenseVectors } from '../../core/test/vectors/check-license-vectors';

// The client SDK's verifiers against the published vectors (keysets and artifacts go through the SDK).
describeLicenseVectors('client-sdk', {
  createSigner: (privateKey, kid) => createNobleEd25519Signer({ privateKey, kid }),
  verifyKeyset(bytes, pinnedRoots, now) {
    const keyset = verifyKeyset(bytes, pinnedRoots, now);
    return { epochIds: [...keyset.epochs.keys()], expiredEpochIds: [...keyset.expiredEpochs.keys()], revocationEpoch: keyset.revocationEpoch };
  },
  verifyArtifact: (bytes, kind, context) =>
    verifyArtifact(bytes, kind, { epochs: new Map(context.epochs.map((epoch) => [epoch.epochIdHex, epoch])) }, {
      ...(context.productId === undefined ? {} : { productId: context.productId }),
      now: context.now,
      revokedEpochIds: context.revokedEpochIds,
    }).payload,
  verifyEpochCertificate: (bytes, pinnedRoots, now) => verifyEpochCertificate(bytes, { pinnedRoots, at: now }),
  verifyDeviceRequest(kind, bytes, devicePublicKey) {
    const request = decodeDeviceRequest(kind, bytes);
    verifyDeviceProof(kind, request, devicePublicKey);
    return request;
  },
});
