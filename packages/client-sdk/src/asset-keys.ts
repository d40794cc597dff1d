// Asset keys: unwrap the keys carried in credentials and tickets, and open assets sealed with them.
// Browser-safe: @noble primitives through @tollgate/core, no Node imports.
import { CryptoError } from '@tollgate/core/crypto';
import {
  assetKeyWrapContext,
  openSealedAsset,
  readSealedAssetHeader,
  unwrapAssetKey as unwrapWithContext,
  type MachineCredential,
  type SealedAssetHeader,
  type ValidationTicket,
} from '@tollgate/core/license';

/**
 * A verified artifact that may carry asset keys: a machine credential (from `activate`,
 * `requestOffline`) or a validation ticket (from `validate`), with the product it verified for.
 *
 * @example
 * ```ts
 * import type { AssetKeyArtifact } from '@tollgate/client-sdk';
 * const artifact: AssetKeyArtifact = { kind: 'validation-ticket', productId: 'acme-editor', payload: result.ticket };
 * ```
 */
export type AssetKeyArtifact =
  | { readonly kind: 'machine-credential'; readonly productId: string; readonly payload: MachineCredential }
  | { readonly kind: 'validation-ticket'; readonly productId: string; readonly payload: ValidationTicket };

/**
 * The features an artifact carries asset keys for (empty when it carries none), and the release they
 * belong to (16 bytes) when it carries any.
 *
 * @param artifact - A verified credential or ticket.
 * @returns The features, ascending, and the release.
 * @example
 * ```ts
 * import { assetKeyFeatures } from '@tollgate/client-sdk';
 * const { features } = assetKeyFeatures({ kind: 'validation-ticket', productId, payload: ticket });
 * ```
 */
export function assetKeyFeatures(artifact: AssetKeyArtifact): { features: string[]; releaseId: Uint8Array | undefined } {
  const block = artifact.payload.assetKeys;
  return { features: block?.keys.map((entry) => entry.feature) ?? [], releaseId: block?.releaseId };
}

/**
 * Unwraps the asset key of one feature from a verified credential or ticket with this device's X25519
 * KEM private key (the one whose public key `activate` sent as `kemPublicKey`). Only this device can:
 * the key is wrapped to its KEM key and bound to this very artifact, release and feature. Verify the
 * artifact first (`activate`, `validate` and `requestOffline` return verified payloads).
 *
 * @param artifact - The verified credential or ticket and its product.
 * @param feature - The feature id.
 * @param kemPrivateKey - The device's 32-byte X25519 private key.
 * @returns The 32-byte asset key: keep it in memory only.
 * @throws `CryptoError` `invalid_argument` when the artifact carries no key for the feature (not
 *   entitled, or none registered for this release); `invalid_key` when the wrap does not open (another
 *   device's key, altered bytes, a wrap moved from another artifact).
 * @example
 * ```ts
 * import { unwrapAssetKey } from '@tollgate/client-sdk';
 * const key = unwrapAssetKey({ kind: 'validation-ticket', productId: 'acme-editor', payload: result.ticket }, 'export.pdf', kemPrivateKey);
 * ```
 */
export function unwrapAssetKey(artifact: AssetKeyArtifact, feature: string, kemPrivateKey: Uint8Array): Uint8Array {
  const block = artifact.payload.assetKeys;
  const context = assetKeyWrapContext(artifact.kind, artifact.productId, artifact.payload);
  return unwrapWithContext({ block: block ?? { releaseId: new Uint8Array(16), ephemeralPublicKey: new Uint8Array(32), keys: [] }, context, feature, kemPrivateKey });
}

/**
 * Reads which product, release and feature a sealed asset belongs to (no key needed), to pick the key
 * that opens it.
 *
 * @param sealed - The sealed asset bytes (format in docs/protocol.md "Sealed assets").
 * @returns The header.
 * @throws `CryptoError` `invalid_argument` when the bytes are no sealed asset.
 * @example
 * ```ts
 * import { readAssetHeader } from '@tollgate/client-sdk';
 * const { feature } = readAssetHeader(bytes);
 * ```
 */
export function readAssetHeader(sealed: Uint8Array): SealedAssetHeader {
  return readSealedAssetHeader(sealed).header;
}

/**
 * Opens an asset the vendor sealed with `sealAsset` (XChaCha20-Poly1305, the header authenticated with
 * the body). When `expect` names a feature, product or release, the header must name the same.
 *
 * @param sealed - The sealed bytes.
 * @param key - The asset key from {@link unwrapAssetKey}.
 * @param expect - What the asset must be sealed for.
 * @returns The asset bytes.
 * @throws `CryptoError` `invalid_key` for another key or altered bytes, `invalid_argument` for bytes that
 *   are no sealed asset or an asset sealed for something else than `expect`.
 * @example
 * ```ts
 * import { openAsset, unwrapAssetKey } from '@tollgate/client-sdk';
 * const model = openAsset(bytes, unwrapAssetKey(artifact, 'pro.model', kemPrivateKey), { feature: 'pro.model' });
 * ```
 */
export function openAsset(sealed: Uint8Array, key: Uint8Array, expect: { feature?: string; productId?: string; releaseId?: Uint8Array } = {}): Uint8Array {
  const { header, asset } = openSealedAsset(sealed, key);
  const mismatch =
    (expect.feature !== undefined && expect.feature !== header.feature) ||
    (expect.productId !== undefined && expect.productId !== header.productId) ||
    (expect.releaseId !== undefined && !sameBytes(expect.releaseId, header.releaseId));
  if (mismatch) throw new CryptoError('invalid_argument', `This asset was sealed for feature ${header.feature} of another feature, release or product than expected.`, { details: { argument: 'expect' } });
  return asset;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}
