import { decodeDeviceRequest, verifyArtifact, verifyDeviceProof, verifyEpochCertificate, verifyKeyset } from '@tollgate/core/license';
import { createNodeEd25519Signer, verifyEd25519Node } from '@tollgate/core/node';
import { describeLicenseVectors } from '../../core/test/vectors/check-license-vectors';

// The server's signing and verification path: Node-native Ed25519 must give the vectors' exact bytes.
describeLicenseVectors('license-server (node-native Ed25519)', {
  createSigner: (privateKey, kid) => createNodeEd25519Signer({ privateKey, kid }),
  verifyKeyset(bytes, pinnedRoots, now) {
    const keyset = verifyKeyset(bytes, pinnedRoots, now, { verify: verifyEd25519Node });
    return { epochIds: [...keyset.epochs.keys()], expiredEpochIds: [...keyset.expiredEpochs.keys()], revocationEpoch: keyset.revocationEpoch };
  },
  verifyArtifact: (bytes, kind, context) =>
    verifyArtifact(bytes, kind, {
      keys: { epochs: new Map(context.epochs.map((epoch) => [epoch.epochIdHex, epoch])) },
      ...(context.productId === undefined ? {} : { productId: context.productId }),
      now: context.now,
      revokedEpochIds: new Set(context.revokedEpochIds),
      verify: verifyEd25519Node,
    }).payload,
  verifyEpochCertificate: (bytes, pinnedRoots, now) => verifyEpochCertificate(bytes, { pinnedRoots, at: now, verify: verifyEd25519Node }),
  verifyDeviceRequest(kind, bytes, devicePublicKey) {
    const request = decodeDeviceRequest(kind, bytes);
    verifyDeviceProof(kind, request, devicePublicKey, verifyEd25519Node);
    return request;
  },
});
