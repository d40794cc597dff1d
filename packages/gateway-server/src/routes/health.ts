import type { ChainHealthProbe, Route } from '@tollgate/core';
import { route } from '@tollgate/core/http';
import type { OpenDatabase } from '@tollgate/core/node';
import { version } from '../../package.json';

/** What `GET /healthz` needs to check. */
export interface HealthDependencies {
  database: Pick<OpenDatabase, 'ping' | 'engine'>;
  /** Reachability of the configured chain RPCs; absent when none is configured. */
  chains?: ChainHealthProbe;
  /** Address of the key that signs offers and receipts, published so merchants can pin it. */
  receiptSigner?: string;
}

/**
 * `GET /healthz`: the database (a `SELECT 1` round trip) and every configured chain RPC
 * (`eth_chainId`, expected chain id, cached a few seconds). The status is 503 only when the database
 * does not answer: an RPC outage hits every instance alike, so taking instances out of a load balancer
 * would not help, and refs and registrations of EOA wallets keep working. It is reported instead:
 * `status: 'degraded'` and the failing network under `chains`. RPC URLs are never shown. `receiptSigner`
 * is the address whose signatures receipts and offers carry.
 *
 * @param deps - The database and, optionally, the chain probe.
 * @returns The route.
 * @example
 * ```ts
 * import { healthRoutes } from '@tollgate/gateway-server';
 * const routes = healthRoutes({ database, chains: createChainHealthProbe({ rpc, clock: systemClock }) });
 * ```
 */
export function healthRoutes(deps: HealthDependencies): Route[] {
  return [
    route({
      method: 'GET',
      path: '/healthz',
      handler: async () => {
        const [databaseOk, chains] = await Promise.all([deps.database.ping(), deps.chains ? deps.chains.check() : Promise.resolve([])]);
        const chainsOk = chains.every((chain) => chain.ok);
        return {
          status: databaseOk ? 200 : 503,
          headers: { 'cache-control': 'no-store' },
          body: {
            ok: databaseOk,
            status: !databaseOk ? 'down' : chainsOk ? 'ok' : 'degraded',
            service: 'tollgate-gateway',
            version,
            database: { ok: databaseOk, engine: deps.database.engine },
            chains,
            ...(deps.receiptSigner === undefined ? {} : { receiptSigner: deps.receiptSigner }),
          },
        };
      },
    }),
  ];
}
