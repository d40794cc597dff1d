import { verifyEd25519, type Signer } from '../crypto';
import { encodeProtectedHeader, encodeSign1, sigStructure } from './cose-sign1';
import { licenseExternalAad } from './domain';
import { artifactKinds, isArtifactKind, type ArtifactKind, type ArtifactPayloads } from './kinds';
import { productIdPattern } from './protocol';
import { encodeRecord } from './record-codec';
import { signChecked, signerKeyId } from './signing-key-id';
import { TrustChainError } from './trust-chain-error';
import type { SignatureVerifier } from './verify-artifact';

/**
 * A signer that can check its own signatures faster than the portable default (the license server's
 * epoch signers check theirs with Node's native Ed25519 against the certified public key). Optional:
 * any `Signer` works, and one without `verifyOwnSignature` is checked with `verifyEd25519`.
 */
export interface SelfCheckingSigner extends Signer {
  /** Whether `signature` verifies over `message` with this signer's (certified) public key. Never throws. */
  verifyOwnSignature(message: Uint8Array, signature: Uint8Array): boolean;
}

function hasOwnCheck(signer: Signer): signer is SelfCheckingSigner {
  return typeof (signer as Partial<SelfCheckingSigner>).verifyOwnSignature === 'function';
}

/**
 * Signs `message` and verifies the signature before anyone sees it: against `signer.publicKey` with
 * `verify` when given, else with the signer's own check (`verifyOwnSignature`), else with
 * `verifyEd25519`. A KMS or HSM that signs with another key than the one it declares, or returns a
 * corrupted signature, is caught here instead of by every client.
 *
 * @param signer - The signer.
 * @param message - The Sig_structure bytes.
 * @param verify - An explicit verifier (e.g. `verifyEd25519Node` on servers).
 * @returns The 64-byte signature.
 * @throws {@link TrustChainError} `invalid_signer` (`details.problem: 'signature'`) when it does not
 *   verify; `TypeError` when the signer breaks the port's contract.
 *
 * @example
 * ```ts
 * import { signVerified, sigStructure } from '@tollgate/core/license';
 * const signature = await signVerified(signer, sigStructure(protectedBytes, externalAad, payload));
 * ```
 */
export async function signVerified(signer: Signer, message: Uint8Array, verify?: SignatureVerifier): Promise<Uint8Array> {
  const signature = await signChecked(signer, message);
  const verified =
    verify !== undefined ? verify(signer.publicKey, message, signature) : hasOwnCheck(signer) ? signer.verifyOwnSignature(message, signature) : verifyEd25519(signer.publicKey, message, signature);
  if (!verified) {
    throw new TrustChainError('invalid_signer', `Signer ${signer.kid} returned a signature that does not verify with its public key (a KMS/HSM fault or the wrong key).`, {
      details: { kid: signer.kid, problem: 'signature' },
    });
  }
  return signature;
}

/** Options of {@link signArtifact}. */
export interface SignArtifactOptions {
  /**
   * The signing key: an epoch signer (`kid` = epoch id hex) for every kind but `epoch-certificate`,
   * which the root signs (`kid` = root key id hex, see `createRootSigner`). On Node use
   * `createNodeEd25519Signer`; any KMS or HSM implementing `Signer` works.
   */
  signer: Signer;
  /** The product of product-bound kinds; must be absent for global kinds. */
  productId?: string;
  /**
   * Checks the fresh signature before it leaves (see {@link signVerified}); by default the signer's own
   * check, else `verifyEd25519`. Servers signing with a plain signer pass `verifyEd25519Node`.
   */
  verify?: SignatureVerifier;
}

/**
 * Builds the protected header and payload of an artifact, ready to sign. Shared by {@link signArtifact}
 * and the test-vector generator, which prints each intermediate value.
 *
 * @param kind - The artifact kind.
 * @param payload - The typed payload.
 * @param kid - The 8-byte key id.
 * @param productId - The product of product-bound kinds.
 * @returns The protected header bytes, payload bytes and external AAD.
 * @throws {@link ArtifactError} `invalid_payload` when the payload breaks the kind's layout; `TypeError`
 *   for an unknown kind or a product id that does not fit the kind's scope.
 *
 * @example
 * ```ts
 * import { prepareArtifact, sigStructure } from '@tollgate/core/license';
 * const prepared = prepareArtifact('kill-order', order, epochId, 'acme-editor');
 * const toSign = sigStructure(prepared.protectedBytes, prepared.externalAad, prepared.payload);
 * ```
 */
export function prepareArtifact<Kind extends ArtifactKind>(
  kind: Kind,
  payload: ArtifactPayloads[Kind],
  kid: Uint8Array,
  productId: string | undefined,
): { protectedBytes: Uint8Array; payload: Uint8Array; externalAad: Uint8Array } {
  if (!isArtifactKind(kind)) throw new TypeError(`unknown artifact kind ${String(kind)}`);
  const info = artifactKinds[kind];
  if (info.scope === 'product') {
    if (typeof productId !== 'string' || !productIdPattern.test(productId)) throw new TypeError(`${kind} is product-bound: pass a valid productId`);
  } else if (productId !== undefined) {
    throw new TypeError(`${kind} is global: it takes no productId`);
  }
  const payloadBytes = encodeRecord(info.spec, payload);
  const protectedBytes = encodeProtectedHeader({ alg: -8, contentType: info.contentType, kid, ...(productId === undefined ? {} : { productId }) });
  return { protectedBytes, payload: payloadBytes, externalAad: licenseExternalAad(kind, productId) };
}

/**
 * Signs a license artifact as an untagged COSE_Sign1 (RFC 9052): the protected header carries EdDSA,
 * the kind's content type, the signer's key id and (for product-bound kinds) the product; the
 * signature covers `["Signature1", protected, external_aad, payload]` with the kind's domain bytes as
 * `external_aad`. The payload is validated against the kind's layout first, so a signed artifact always
 * passes `verifyArtifact`'s schema check, and the signature is verified after signing
 * ({@link signVerified}), so a faulty KMS/HSM signer never hands out an artifact clients would refuse.
 *
 * @param kind - The artifact kind.
 * @param payload - The typed payload.
 * @param options - Signer and product.
 * @returns The envelope bytes.
 * @throws {@link ArtifactError} `invalid_payload`; {@link TrustChainError} `invalid_signer` for a
 *   signature that does not verify; `TypeError` for a misused signer or product id.
 *
 * @example
 * ```ts
 * import { signArtifact } from '@tollgate/core/license';
 * import { createNodeEd25519Signer } from '@tollgate/core/node';
 * const signer = createNodeEd25519Signer({ privateKey: epochSeed, kid: epochIdHex });
 * const ticket = await signArtifact('validation-ticket', payload, { signer, productId: 'acme-editor' });
 * ```
 */
export async function signArtifact<Kind extends ArtifactKind>(kind: Kind, payload: ArtifactPayloads[Kind], options: SignArtifactOptions): Promise<Uint8Array> {
  const kid = signerKeyId(options.signer);
  const prepared = prepareArtifact(kind, payload, kid, options.productId);
  const signature = await signVerified(options.signer, sigStructure(prepared.protectedBytes, prepared.externalAad, prepared.payload), options.verify);
  return encodeSign1(prepared.protectedBytes, prepared.payload, signature);
}
