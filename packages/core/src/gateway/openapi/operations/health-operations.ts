import * as v from 'valibot';
import type { ChainHealth } from '../../chain-health';
import { named, type OperationGroup } from '../../../openapi/descriptors';
import { addressOut, describes } from '../schemas/common';

const chainHealth = describes<ChainHealth>()(
  v.object({
    network: v.string(),
    ok: v.boolean(),
    chainId: v.optional(v.pipe(v.number(), v.safeInteger(), v.description('The chain id the node reported, when it answered.'))),
    error: v.optional(v.picklist(['unreachable', 'wrong_chain'])),
  }),
);

/** The body of `GET /healthz` as `tollgate-gateway` serves it (`healthRoutes` of `@tollgate/gateway-server`). */
export const healthStatusResponse = named(
  'HealthStatus',
  v.object({
    ok: v.pipe(v.boolean(), v.description('Whether the database answers.')),
    status: v.pipe(v.picklist(['ok', 'degraded', 'down']), v.description('degraded: a chain RPC fails (named under chains); down: the database does not answer.')),
    service: v.literal('tollgate-gateway'),
    version: v.string(),
    database: v.object({ ok: v.boolean(), engine: v.picklist(['pglite', 'postgres']) }),
    chains: v.array(chainHealth),
    receiptSigner: v.optional(v.pipe(addressOut, v.description('The address whose signatures receipts and offers carry: pin it.'))),
  }),
);

/**
 * `GET /healthz`, which the host serves beside the gateway routes (`healthRoutes` of
 * `@tollgate/gateway-server`): pass it to `createGateway({ openapi: { operations: [healthOperations] } })`
 * so the served document lists it.
 *
 * @example
 * ```ts
 * import { createGateway, healthOperations } from '@tollgate/core/gateway';
 * const gateway = createGateway({ ...deps, openapi: { operations: [healthOperations] } });
 * ```
 */
export const healthOperations: OperationGroup = {
  name: 'health',
  description: 'Liveness of the gateway instance, its database and its chain RPCs.',
  operations: [
    {
      method: 'GET',
      path: '/healthz',
      operationId: 'getHealth',
      summary: 'Health of the instance, its database and its chain RPCs',
      description: 'Status 503 only when the database does not answer: an RPC outage is reported as degraded, since every instance shares it.',
      security: 'public',
      responses: {
        200: { description: 'The database answers.', body: healthStatusResponse },
        503: { description: 'The database does not answer (status down).', body: healthStatusResponse },
      },
      errors: [],
    },
  ],
};
