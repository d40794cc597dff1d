import { AdminError } from '../../errors/admin';
import { renderAdminError } from '../../errors/render';
import { RequestError } from '../../errors/request';
import { defineRoutes, route } from '../../http/routes';
import type { Middleware, RouteTable } from '../../http/types';
import type { SqlClient } from '../../storage/sql-client';
import type { Clock } from '../../time/clock';
import { createSqlBillingEventStore } from './billing-event-store';
import { parseBillingEvent } from './provider-events';
import { billingProviders, verifyWebhookSignature, type WebhookProvider, type WebhookSignatureFailure } from './webhook-signature';

/** The path prefix the webhook table answers (`POST /webhooks/{provider}`). */
export const billingWebhookPrefix = '/webhooks';

/** Largest webhook body accepted, raw (license spec, "Limits"); beyond it 413 `payload_too_large`. */
export const billingWebhookBodyLimit = 64 * 1024;

/** What the webhook routes need. */
export interface BillingWebhookDeps {
  readonly sql: SqlClient;
  readonly clock: Clock;
  /** Each provider's signing secrets (several while one is rolled); a provider without any answers 503. */
  readonly secrets: Readonly<Record<WebhookProvider, readonly string[]>>;
  /** Called after an event was queued (the server wakes its worker); must not throw. */
  onQueued?(): void;
  /** Called with anything unexpected that became a 500 (the server logs it). */
  onUnexpectedError?(error: unknown): void;
}

const failureMessages: Readonly<Record<WebhookSignatureFailure, string>> = {
  missing_header: 'The webhook carries no signature header.',
  malformed_header: 'The webhook signature header is malformed.',
  timestamp_out_of_tolerance: 'The webhook signature timestamp is more than 5 minutes from the server time.',
  no_match: 'The webhook signature does not match any configured secret.',
};

const isProvider = (name: string): name is WebhookProvider => (billingProviders as readonly string[]).includes(name);

// Webhook answers are never cached, whatever produced them (the error renderer sets it too).
const noStore: Middleware = async (_request, next) => {
  const response = await next();
  return { ...response, headers: { ...response.headers, 'cache-control': 'no-store' } };
};

/**
 * The billing webhook route table: `POST /webhooks/{stripe|paddle|lemonsqueezy}`, JSON answers, the
 * Admin error envelope `{ ok: false, error: { code, message } }`, no CORS, `Cache-Control: no-store`.
 *
 * In order: the body is read raw (at most 64 KiB, else 413 `payload_too_large`; `application/json`,
 * else 415); an unknown provider is 404 `not_found`; a provider with no secret configured is 503
 * `service_unavailable` (the provider retries, so nothing is lost while the operator sets it); the
 * signature is checked over the raw bytes (401 `invalid_signature`); only then is the body parsed, from
 * those same bytes. An event name the service does not act on is 200 `{ ok: true, accepted: false,
 * ignored: true }`; a verified body that is not a usable event is 400 `invalid_request`. A recognised
 * event is inserted into the queue keyed by (provider, event id) before anything else happens: new, it
 * is 202 `{ ok: true, accepted: true }`; already there (a redelivery), 200 `{ ok: true, accepted: true,
 * duplicate: true }` and nothing changes.
 *
 * @param deps - Database, clock, secrets and the queue wake-up.
 * @returns The route table to mount under {@link billingWebhookPrefix}.
 * @example
 * ```ts
 * import { billingWebhookRoutes } from '@tollgate/core/license';
 * const table = billingWebhookRoutes({ sql, clock, secrets: { stripe: ['whsec_…'], paddle: [], lemonsqueezy: [] } });
 * ```
 */
export function billingWebhookRoutes(deps: BillingWebhookDeps): RouteTable {
  const events = createSqlBillingEventStore(deps.sql);
  return defineRoutes({
    middleware: [noStore],
    renderError: (error) => {
      if (!(error instanceof AdminError) && !(error instanceof RequestError)) deps.onUnexpectedError?.(error);
      return renderAdminError(error);
    },
    routes: [
      route({
        method: 'POST',
        path: `${billingWebhookPrefix}/:provider`,
        body: { type: 'raw', maxBytes: billingWebhookBodyLimit, contentTypes: ['application/json'] },
        handler: async (request) => {
          const provider = request.params.provider;
          if (!isProvider(provider)) throw new AdminError('not_found', `No billing provider "${provider.slice(0, 32)}"; use one of ${billingProviders.join(', ')}.`);
          const secrets = deps.secrets[provider];
          if (secrets.length === 0) throw new AdminError('service_unavailable', `Webhooks from ${provider} are not configured on this server (no signing secret).`);
          const check = verifyWebhookSignature(provider, request.headers, request.body, secrets, Math.floor(deps.clock.now() / 1000));
          if (!check.ok) throw new AdminError('invalid_signature', failureMessages[check.reason]);
          const parsed = parseBillingEvent(provider, request.body);
          if (parsed.kind === 'malformed') throw new AdminError('invalid_request', parsed.message);
          if (parsed.kind === 'ignored') return { status: 200, body: { ok: true, accepted: false, ignored: true } };
          const accepted = await events.accept(parsed.event, new Date(deps.clock.now()));
          if (accepted.kind === 'duplicate') return { status: 200, body: { ok: true, accepted: true, duplicate: true } };
          deps.onQueued?.();
          return { status: 202, body: { ok: true, accepted: true } };
        },
      }),
    ],
  });
}
