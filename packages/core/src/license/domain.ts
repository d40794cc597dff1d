import { utf8Encode } from '../crypto';
import type { ArtifactKind, DeviceRequestKind } from './kinds';

/**
 * The domain label of a kind: `tollgate/license/v1/<kind>`.
 *
 * @param kind - An artifact or device request kind.
 * @returns The label text.
 *
 * @example
 * ```ts
 * import { licenseDomainLabel } from '@tollgate/core/license';
 * licenseDomainLabel('kill-order'); // 'tollgate/license/v1/kill-order'
 * ```
 */
export function licenseDomainLabel(kind: ArtifactKind | DeviceRequestKind): string {
  return `tollgate/license/v1/${kind}`;
}

/**
 * The per-kind, per-product domain bytes bound into every signature as COSE `external_aad`:
 * `utf8("tollgate/license/v1/<kind>") ‖ 0x00 ‖ utf8(product_id)`, where global kinds use the empty
 * product (the bytes end with the 0x00). Product ids never contain 0x00 and are never empty, so the
 * bytes name one kind and one product unambiguously: a ticket cannot verify as a kill order, nor
 * product A's artifact as product B's.
 *
 * @param kind - The artifact or device request kind.
 * @param productId - The product for product-bound kinds; `undefined` for global kinds.
 * @returns The external AAD.
 *
 * @example
 * ```ts
 * import { licenseExternalAad } from '@tollgate/core/license';
 * const aad = licenseExternalAad('validation-ticket', 'acme-editor');
 * ```
 */
export function licenseExternalAad(kind: ArtifactKind | DeviceRequestKind, productId: string | undefined): Uint8Array {
  const label = utf8Encode(licenseDomainLabel(kind));
  const product = utf8Encode(productId ?? '');
  const aad = new Uint8Array(label.length + 1 + product.length);
  aad.set(label, 0);
  aad.set(product, label.length + 1);
  return aad;
}
