import type { Signer } from '../crypto';
import { encodeProtectedHeader, encodeSign1, sigStructure } from './cose-sign1';
import { licenseExternalAad } from './domain';
import { artifactKinds, isArtifactKind, type ArtifactKind, type ArtifactPayloads } from './kinds';
import { productIdPattern } from './protocol';
import { encodeRecord } from './record-codec';
import { signChecked, signerKeyId } from './signing-key-id';

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
 * import { prepareArtifact, sigStructure } from '@tollgate/core';
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
 * passes `verifyArtifact`'s schema check.
 *
 * @param kind - The artifact kind.
 * @param payload - The typed payload.
 * @param options - Signer and product.
 * @returns The envelope bytes.
 * @throws {@link ArtifactError} `invalid_payload`; `TypeError` for a misused signer or product id.
 *
 * @example
 * ```ts
 * import { signArtifact } from '@tollgate/core';
 * import { createNodeEd25519Signer } from '@tollgate/core/node';
 * const signer = createNodeEd25519Signer({ privateKey: epochSeed, kid: epochIdHex });
 * const ticket = await signArtifact('validation-ticket', payload, { signer, productId: 'acme-editor' });
 * ```
 */
export async function signArtifact<Kind extends ArtifactKind>(kind: Kind, payload: ArtifactPayloads[Kind], options: SignArtifactOptions): Promise<Uint8Array> {
  const kid = signerKeyId(options.signer);
  const prepared = prepareArtifact(kind, payload, kid, options.productId);
  const signature = await signChecked(options.signer, sigStructure(prepared.protectedBytes, prepared.externalAad, prepared.payload));
  return encodeSign1(prepared.protectedBytes, prepared.payload, signature);
}
