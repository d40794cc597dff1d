import type { LicenseLogSink } from './logger';
import type { LicenseTrust } from './trust/license-trust';

/**
 * What a change feed is started with.
 *
 * @example
 * ```ts
 * import type { LicenseChangeFeedOptions } from '@tollgate/core/license';
 * const options: LicenseChangeFeedOptions = { trust, logger };
 * ```
 */
export interface LicenseChangeFeedOptions {
  /** The trust state that applies the notices of `tollgate_license_trust`. */
  trust: Pick<LicenseTrust, 'applyChangeNotice'>;
  logger: LicenseLogSink;
  /**
   * Other channels on the same connection, e.g. release changes (`releaseChangeChannel` with
   * `applyReleaseChangeNotice`): each gets its notices, and `'reconnected'` after a lost connection.
   */
  alsoListen?: readonly { readonly channel: string; apply(payload: string): void }[];
}

/**
 * How an instance hears the changes other instances commit (epochs revoked or added, releases changed)
 * before its periodic keyset refresh: on PostgreSQL, `pgLicenseChangeFeed(url)` from `@tollgate/core/node`
 * (`LISTEN`/`NOTIFY`). A single instance (PGlite) needs none: its own changes already reach it.
 *
 * @example
 * ```ts
 * import type { LicenseChangeFeed } from '@tollgate/core/license';
 * const none: LicenseChangeFeed = () => ({ ready: Promise.resolve(), close: async () => undefined });
 * ```
 */
export type LicenseChangeFeed = (options: LicenseChangeFeedOptions) => { readonly ready: Promise<void>; close(): Promise<void> };
