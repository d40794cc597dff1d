import * as v from 'valibot';
import type { AdminTransport, MutationOptions, ReadOptions } from '../transport-types';

/**
 * A product's suspicion-alert webhook. `signing_key_id` and `signing_secret` verify deliveries
 * (`Tollgate-Signature`); the server sends them when it holds the alert signing root. Treat the secret as one.
 */
export const alertWebhookSettingsSchema = v.looseObject({
  product_id: v.string(),
  /** `null` until one is set. */
  alert_webhook: v.nullable(v.looseObject({ url: v.string(), threshold: v.number() })),
  signing_key_id: v.optional(v.string()),
  signing_secret: v.optional(v.string()),
  updated_at: v.string(),
});
/** A product's alert-webhook settings. */
export type AlertWebhookSettings = v.InferOutput<typeof alertWebhookSettingsSchema>;

/** What `setAlertWebhook` takes. */
export interface AlertWebhookInput {
  /** An https URL on a public host (no credentials, no private or local address). */
  readonly url: string;
  /** Suspicion alerts at or above this score (1 to 100) are delivered. */
  readonly threshold: number;
}

/** The `products` group. */
export interface ProductsResource {
  /**
   * Reads a product's alert webhook (`GET /products/:productId/alert-webhook`).
   *
   * @example `const { alert_webhook } = await admin.products.getAlertWebhook(productId);`
   */
  getAlertWebhook(productId: string, options?: ReadOptions): Promise<AlertWebhookSettings>;
  /**
   * Sets a product's alert webhook (`PATCH /products/:productId/alert-webhook`); there is no unset, only a new URL.
   *
   * @example `await admin.products.setAlertWebhook(productId, { url: 'https://ops.example.com/alerts', threshold: 80 });`
   */
  setAlertWebhook(productId: string, input: AlertWebhookInput, options?: MutationOptions): Promise<AlertWebhookSettings>;
}

/**
 * Builds the `products` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * const products = createProductsResource(transport);
 * const settings = await products.getAlertWebhook(productId);
 * ```
 */
export function createProductsResource(transport: AdminTransport): ProductsResource {
  const alertPath = (productId: string) => `/products/${encodeURIComponent(productId)}/alert-webhook`;
  return {
    getAlertWebhook: async (productId, options) => (await transport.request({ method: 'GET', path: alertPath(productId), kind: 'read', schema: alertWebhookSettingsSchema, options })).body,
    setAlertWebhook: async (productId, input, options) => {
      const body = { url: input.url, threshold: input.threshold };
      return (await transport.request({ method: 'PATCH', path: alertPath(productId), kind: 'mutation', body, schema: alertWebhookSettingsSchema, options })).body;
    },
  };
}
