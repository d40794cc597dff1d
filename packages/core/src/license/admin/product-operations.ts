import { sha256 } from '@noble/hashes/sha2.js';
import * as v from 'valibot';
import { hexEncode } from '../../crypto/hex';
import { utf8Encode } from '../../crypto/utf8';
import { AdminError } from '../../errors/admin';
import { checkPublicHttpsUrl } from '../../net/url-safety';
import { adminOperation, type AdminOperation } from './admin-operation';
import { adminPathId, parseAdminInput } from './admin-input';
import type { SqlClient } from '../../storage/sql-client';
import { suspicionAlertKey } from '../suspicion/suspicion-alert-delivery';
import type { ProductRecord, VendorStore } from './vendor-store';

const alertWebhookSchema = v.strictObject({
  url: v.pipe(
    v.string(),
    v.check((url) => checkPublicHttpsUrl(url).ok, 'an https URL on a public host (no credentials, no private or local address)'),
  ),
  threshold: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)),
});

/**
 * The alert-webhook view of a product. With the signing root it also carries the product's alert signing
 * key (`signing_key_id`, `signing_secret`): the receiver needs it to verify deliveries, and it is derived
 * from the master key, so it is the same on every read and stored nowhere.
 */
function alertView(product: ProductRecord, alertSigningRoot: Uint8Array | undefined) {
  const key = alertSigningRoot === undefined ? undefined : suspicionAlertKey(alertSigningRoot, product.productId);
  return {
    product_id: product.productId,
    alert_webhook: product.alertWebhook === null ? null : { ...product.alertWebhook },
    ...(key === undefined ? {} : { signing_key_id: key.keyId, signing_secret: key.secret }),
    updated_at: product.updatedAt.toISOString(),
  };
}

/**
 * `GET` and `PATCH /v1/admin/products/:productId/alert-webhook` (scope `products:rw`): the per-product
 * suspicion-alert webhook, `url` (https, public host) and `threshold` (1 to 100). `PATCH` with
 * `{ "alert_webhook": null }` is not offered: set a new URL instead (a product always alerts somewhere
 * once configured). Another vendor's product is `not_found`. Both answer the product's alert signing key
 * (`signing_key_id`, `signing_secret`) when `alertSigningRoot` is given: deliveries are signed with it
 * (`Tollgate-Signature`, the recipe of merchant notifications).
 *
 * @param vendors - The vendor store to read and write through (rebuilt over the call's transaction).
 * @param alertSigningRoot - The `alertSigning` subkey of `LICENSE_MASTER_KEY`.
 * @returns The operations.
 * @example
 * ```ts
 * import { productOperations, createSqlVendorStore } from '@tollgate/core/license';
 * const operations = productOperations(createSqlVendorStore);
 * ```
 */
export function productOperations(vendors: (sql: SqlClient) => VendorStore, alertSigningRoot?: Uint8Array): AdminOperation[] {
  return [
    adminOperation({
      method: 'GET',
      path: '/products/:productId/alert-webhook',
      docs: { summary: "Reads the product's suspicion-alert webhook settings." },
      scopes: ['products:rw'],
      kind: 'read',
      run: async (call) => {
        const product = await vendors(call.sql).getProduct(call.actor.vendorId, adminPathId(call.params.productId, 'product'));
        if (product === undefined) throw new AdminError('not_found', 'No such product.');
        return { body: alertView(product, alertSigningRoot) };
      },
    }),
    adminOperation({
      method: 'PATCH',
      path: '/products/:productId/alert-webhook',
      docs: { summary: "Sets the product's suspicion-alert webhook (URL, threshold, enabled).", body: alertWebhookSchema },
      scopes: ['products:rw'],
      kind: 'mutation',
      run: async (call) => {
        const productId = adminPathId(call.params.productId, 'product');
        const store = vendors(call.sql);
        // The target before the body: another vendor's product is 404 whatever was sent.
        if ((await store.getProduct(call.actor.vendorId, productId)) === undefined) throw new AdminError('not_found', 'No such product.');
        const config = parseAdminInput(alertWebhookSchema, call.body);
        const product = await store.setAlertWebhook(call.actor.vendorId, productId, config, call.now);
        if (product === undefined) throw new AdminError('not_found', 'No such product.');
        await call.audit({ action: 'product.alert_webhook.set', targetType: 'product', targetId: productId, summary: {
            // The chain is immutable and readable with audit:r: keep the host, not a path or query that may hold a secret.
            url_host: new URL(config.url).host,
            url_sha256: hexEncode(sha256(utf8Encode(config.url))),
            threshold: config.threshold,
          },
        });
        return { body: alertView(product, alertSigningRoot) };
      },
    }),
  ];
}
