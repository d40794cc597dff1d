import { lookup } from 'node:dns/promises';
import type { LicenseNetwork } from '../license/service/license-network';
import { createNodeNotificationTransport } from './node-notify-transport';

/**
 * The license service's outbound network on Node, as `tollgate-license` runs it: the SSRF-safe Node
 * transport (public addresses only, pinned after DNS, 5 s connect deadline) and the system resolver
 * (`/etc/hosts` and the OS configuration apply).
 *
 * @example
 * ```ts
 * import { createLicenseService } from '@tollgate/core';
 * import { nodeLicenseNetwork } from '@tollgate/core/node';
 * const service = createLicenseService({ sql, clock, masterKey, pinnedRoots, logger, network: nodeLicenseNetwork });
 * ```
 */
export const nodeLicenseNetwork: LicenseNetwork = Object.freeze({
  createTransport: (options: Parameters<LicenseNetwork['createTransport']>[0]) => createNodeNotificationTransport({ connectTimeoutMs: 5_000, ...options }),
  resolve: (hostname: string) => lookup(hostname, { all: true, verbatim: true }),
});
