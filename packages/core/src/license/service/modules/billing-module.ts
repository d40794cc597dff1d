import { billingCheckoutTokenLabel } from '../../billing/checkout-token';
import { billingWebhookPrefix, billingWebhookRoutes } from '../../billing/billing-routes';
import { checkoutTokenOperation } from '../../billing/checkout-token-operation';
import { deriveLicenseAdminKeys, deriveLicenseSubkey } from '../../admin/admin-keys';
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
 * @returns The mounted webhook table, and the event job (unless `billing.worker` is false).
 * @example
 * ```ts
 * const billing = billingModule(context);
 * const job = billing.workers?.[0]?.start();
 * ```
 */
export function billingModule(context: LicenseModuleContext): LicenseModule {
  const { options, sql, audit, trust, clock, masterKey, logger } = context;
  const billing = options.billing;
  // Signs and verifies `tollgate_checkout` tokens (label registered in licenseSubkeyLabels by the lead).
  const checkoutTokenKey = deriveLicenseSubkey(masterKey, billingCheckoutTokenLabel);
  let job: BillingEventJob | undefined;
  const startJob = (): BillingEventJob =>
    (job = startBillingEventJob({
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
      }));
  const table = billingWebhookRoutes({
    sql,
    clock,
    secrets: billing.secrets,
    ...(billing.worker ? { onQueued: () => job?.wake() } : {}),
    onUnexpectedError: (error) => logger.error({ err: error }, 'unhandled billing webhook error'),
  });
  return {
    adminOperations: [checkoutTokenOperation({ checkoutTokenKey })],
    tables: [{ prefix: billingWebhookPrefix, table }],
    workers: billing.worker
      ? [
          {
            start: () => {
              const running = startJob();
              return {
                close: async () => {
                  await running.close();
                  if (job === running) job = undefined;
                },
              };
            },
          },
        ]
      : [],
  };
}
