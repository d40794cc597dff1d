// Gateway instances behind one load balancer, on one scratch database of the PostgreSQL server: the setup
// of the race tests (PGlite has one connection, so requests serialise there and a race proves nothing).
import { generatePrivateKey } from 'viem/accounts';
import { createScratchDatabase } from './gateway';

/** Instances started by {@link startInstances}. */
export interface GatewayInstances<Gateway> {
  readonly gateways: Gateway[];
  /** Closes every instance, then drops the database. */
  close(): Promise<void>;
}

/**
 * Starts `count` (default 2) gateway instances on a fresh database of the PostgreSQL server, one after
 * the other, as instances behind one load balancer: they share the server secret (API key hashes) and
 * the signing key (a fresh one unless `env` gives `GATEWAY_SIGNING_KEY`). A failed start closes what started.
 *
 * @example
 * ```ts
 * const instances = await startInstances({ adminUrl: postgres.connectionString, databasePrefix: 'tollgate_orders', env: stack.gatewayEnv, start: startTestGateway });
 * const [first, second] = instances.gateways;
 * await instances.close();
 * ```
 */
export async function startInstances<Gateway extends { close(): Promise<void> }>(params: {
  readonly adminUrl: string;
  readonly databasePrefix: string;
  readonly env?: Record<string, string>;
  readonly count?: number;
  readonly start: (env: Record<string, string>, options: { secret: Uint8Array }) => Promise<Gateway>;
}): Promise<GatewayInstances<Gateway>> {
  const database = await createScratchDatabase(params.adminUrl, params.databasePrefix);
  const env = { GATEWAY_SIGNING_KEY: generatePrivateKey(), ...params.env, GATEWAY_DATABASE_URL: database.url };
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const gateways: Gateway[] = [];
  const close = async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await database.drop();
  };
  try {
    for (let index = 0; index < (params.count ?? 2); index++) gateways.push(await params.start(env, { secret }));
  } catch (error) {
    await close();
    throw error;
  }
  return { gateways, close };
}
