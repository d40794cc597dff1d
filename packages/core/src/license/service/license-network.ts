import type { NotificationTransport } from '../../webhooks/notification-transport';

/**
 * Resolves a host name to all of its addresses (`dns.lookup(host, { all: true })` on Node).
 *
 * @example
 * ```ts
 * import type { LicenseHostResolver } from '@tollgate/core/license';
 * const resolve: LicenseHostResolver = async () => [{ address: '203.0.113.7', family: 4 }];
 * ```
 */
export type LicenseHostResolver = (hostname: string) => Promise<readonly { readonly address: string; readonly family: number }[]>;

/**
 * The outbound network of the license service: suspicion alerts and metric-subscription webhooks go out
 * through `createTransport` (which must refuse non-public addresses, see `createNodeNotificationTransport`),
 * and `resolve` checks a subscription's destination when it is created. On Node pass `nodeLicenseNetwork`
 * from `@tollgate/core/node`.
 *
 * @example
 * ```ts
 * import type { LicenseNetwork } from '@tollgate/core';
 * import { createNodeNotificationTransport } from '@tollgate/core/node';
 * const network: LicenseNetwork = { createTransport: (options) => createNodeNotificationTransport({ connectTimeoutMs: 5_000, ...options }) };
 * ```
 */
export interface LicenseNetwork {
  /** The SSRF-safe transport of alerts and subscriptions; `resolve` (tests) replaces its name resolution. */
  createTransport(options: { readonly insecureAllowLoopbackForTests?: boolean; readonly resolve?: LicenseHostResolver }): NotificationTransport;
  /** Name resolution of the creation-time destination check; without it every name that is not an IP literal is accepted (delivery still checks). */
  readonly resolve?: LicenseHostResolver;
}
