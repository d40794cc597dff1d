import type { RandomSource } from '../crypto/random';
import type { Clock } from '../time/clock';
import type { NetworkRegistry } from './networks';
import type { GatewayKeys } from './secrets';

/**
 * What every gateway service needs. Storage is not in here: each service declares the stores it uses as
 * `stores: Pick<GatewayStores, …>` next to these.
 */
export interface GatewayServiceDeps {
  /** Subkeys derived from the server secret (`deriveGatewayKeys`). */
  readonly keys: GatewayKeys;
  readonly networks: NetworkRegistry;
  /**
   * The gateway's public origin (`https://pay.example.com`): bound into challenges, and the base of
   * ref and resource URLs. A function when it is only known after listening (port 0).
   */
  readonly publicUrl: string | (() => string);
  readonly clock: Clock;
  /** Randomness for ids, nonces and keys; the platform CSPRNG by default. */
  readonly random?: RandomSource;
}

/**
 * The public origin of `deps` without a trailing slash.
 *
 * @param deps - Service dependencies.
 * @returns For example `https://pay.example.com`.
 * @example
 * ```ts
 * import { resolvePublicUrl } from '@tollgate/core/gateway';
 * resolvePublicUrl({ publicUrl: () => 'http://localhost:4020/' }); // 'http://localhost:4020'
 * ```
 */
export function resolvePublicUrl(deps: Pick<GatewayServiceDeps, 'publicUrl'>): string {
  const url = typeof deps.publicUrl === 'function' ? deps.publicUrl() : deps.publicUrl;
  return url.endsWith('/') ? url.slice(0, -1) : url;
}

/**
 * Unix seconds of a date (what every gateway JSON timestamp uses).
 *
 * @param date - The time.
 * @returns Whole seconds since the epoch, rounded down.
 * @example
 * ```ts
 * import { epochSeconds } from '@tollgate/core/gateway';
 * epochSeconds(new Date(1_500)); // 1
 * ```
 */
export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
