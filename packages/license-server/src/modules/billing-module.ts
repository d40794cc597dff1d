import { billingCheckoutTokenLabel, billingWebhookPrefix, billingWebhookRoutes, checkoutTokenOperation, deriveLicenseAdminKeys, deriveLicenseSubkey } from '@tollgate/core';
import { startBillingEventJob, type BillingEventJob } from '../jobs/billing-event-job';
import type { LicenseModule, LicenseModuleContext } from './license-module';

/**
 * The billing feature of the license server: `POST /webhooks/{stripe|paddle|lemonsqueezy}` (mounted
 * under `/webhooks`, outside `/v1/`, with the JSON error envelope, no CORS and `no-store`) queues
 * verified events durably, and the billing event job applies them to licenses (issue or extend on a
 * paid subscription, the dunning grace on a failed renewal, lapse at the period end on cancellation,
 * the Admin revoke path on a refund or chargeback); `POST /v1/admin/billing/checkout-tokens` signs the
 * checkout token through which alone a new subscription links to a license. With `BILLING_WORKER=false` this instance only
 * accepts events; another instance on the same database applies them.
 *
 * @param context - Database, audit, trust, clock, master key, logger, config.
 * @returns The mounted webhook table, and `close()` stopping the job.
 * @example
 * ```ts
 * const billing = billingModule(context);
 * await billing.close?.();
 * ```
 */
export function billingModule(context: LicenseModuleContext): LicenseModule {
  const { config, sql, audit, trust, clock, masterKey, logger } = context;
  const billing = config.billing;
  // Signs and verifies `tollgate_checkout` tokens (label registered in licenseSubkeyLabels by the lead).
  const checkoutTokenKey = deriveLicenseSubkey(masterKey, billingCheckoutTokenLabel);
  const job: BillingEventJob | undefined = billing.worker
    ? startBillingEventJob({
        sql,
        clock,
        audit,
        logger,
        intervalMs: billing.pollIntervalMs,
        dunningGraceSeconds: billing.dunningGraceSeconds,
        licenseKeyHashKey: deriveLicenseAdminKeys(masterKey).licenseKeyHash,
        checkoutTokenKey,
        retentionMs: billing.eventRetentionMs,
        revocation: {
          sql,
          signingEpochs: () => trust.signingEpochs(),
          // The keyset carries the revocation epoch: rebuild it once a refund's revocation has committed.
          afterRevocationPublished: () => void trust.refresh().catch(() => undefined),
        },
      })
    : undefined;
  const table = billingWebhookRoutes({
    sql,
    clock,
    secrets: billing.secrets,
    ...(job === undefined ? {} : { onQueued: () => job.wake() }),
    onUnexpectedError: (error) => logger.error({ err: error }, 'unhandled billing webhook error'),
  });
  return {
    adminOperations: [checkoutTokenOperation({ checkoutTokenKey })],
    tables: [{ prefix: billingWebhookPrefix, table }],
    close: async () => {
      await job?.close();
    },
  };
}
