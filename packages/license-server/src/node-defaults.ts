import type { Clock, NotificationTransport, Route } from '@tollgate/core';
import {
  createEpochSigner as createCoreEpochSigner,
  createLicenseTrust as createCoreLicenseTrust,
  healthRoutes as coreHealthRoutes,
  startAnalyticsDeliveryJob as startCoreAnalyticsDeliveryJob,
  startAuditAnchorJob as startCoreAuditAnchorJob,
  startSuspicionAlertJob as startCoreSuspicionAlertJob,
  type AnalyticsDeliveryJob,
  type AnalyticsDeliveryJobOptions,
  type AuditAnchorJob,
  type AuditAnchorJobOptions,
  type EpochKey,
  type EpochRetirementCheck,
  type EpochSigner,
  type LicenseHostResolver,
  type LicenseTrust,
  type LicenseTrustOptions,
  type SuspicionAlertJobOptions,
} from '@tollgate/core/license';
import { nodeLicenseCrypto, nodeLicenseNetwork } from '@tollgate/core/node';
import { version } from '../package.json';

// The units below moved to `@tollgate/core` (#28); these keep this package's exports as they were: Node's
// native Ed25519 and the SSRF-safe Node transport by default, and `/health` reporting this package's version.

/**
 * `GET /health` reporting this package's version (core's `healthRoutes`).
 *
 * @example
 * ```ts
 * import { healthRoutes } from '@tollgate/license-server';
 * const routes = healthRoutes(database);
 * ```
 */
export function healthRoutes(database: { ping(): Promise<boolean> }): Route[] {
  return coreHealthRoutes(database, { version });
}

/**
 * Core's `createLicenseTrust`, on Node's native Ed25519 unless `crypto` says otherwise.
 *
 * @example
 * ```ts
 * import { createLicenseTrust } from '@tollgate/license-server';
 * const trust = createLicenseTrust({ sql, masterKey, pinnedRoots, clock, logger, refreshIntervalMs: 30_000 });
 * ```
 */
export function createLicenseTrust(options: LicenseTrustOptions): LicenseTrust {
  return createCoreLicenseTrust({ crypto: nodeLicenseCrypto, ...options });
}

/**
 * Core's `createEpochSigner`, on Node's native Ed25519.
 *
 * @example
 * ```ts
 * import { createEpochSigner } from '@tollgate/license-server';
 * const signer = createEpochSigner(epoch, privateKey, (id) => retired.has(id), systemClock);
 * ```
 */
export function createEpochSigner(epoch: EpochKey, privateKey: Uint8Array, isRetired: EpochRetirementCheck, clock: Clock): EpochSigner {
  return createCoreEpochSigner(epoch, privateKey, isRetired, clock, nodeLicenseCrypto);
}

/**
 * Core's `startAuditAnchorJob`, on Node's native Ed25519 unless `crypto` says otherwise.
 *
 * @example
 * ```ts
 * import { startAuditAnchorJob } from '@tollgate/license-server';
 * const job = startAuditAnchorJob({ sql, trust, clock: systemClock, logger, intervalMs: 3_600_000 });
 * ```
 */
export function startAuditAnchorJob(options: AuditAnchorJobOptions): AuditAnchorJob {
  return startCoreAuditAnchorJob({ crypto: nodeLicenseCrypto, ...options });
}

/**
 * Core's `startSuspicionAlertJob` with the SSRF-safe Node transport by default.
 *
 * @example
 * ```ts
 * import { startSuspicionAlertJob } from '@tollgate/license-server';
 * const alerts = startSuspicionAlertJob({ sql, signingRoot, clock: systemClock, logger });
 * ```
 */
export function startSuspicionAlertJob(options: Omit<SuspicionAlertJobOptions, 'transport'> & { transport?: NotificationTransport }): { close(): Promise<void> } {
  const loopback = options.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {};
  return startCoreSuspicionAlertJob({ ...options, transport: options.transport ?? nodeLicenseNetwork.createTransport(loopback) });
}

/**
 * Core's `startAnalyticsDeliveryJob` with the SSRF-safe Node transport (and `resolve`, tests) by default.
 *
 * @example
 * ```ts
 * import { startAnalyticsDeliveryJob } from '@tollgate/license-server';
 * const job = startAnalyticsDeliveryJob({ sql, masterKey, metrics, clock: systemClock, logger });
 * ```
 */
export function startAnalyticsDeliveryJob(
  options: Omit<AnalyticsDeliveryJobOptions, 'transport'> & { transport?: NotificationTransport; resolve?: LicenseHostResolver },
): AnalyticsDeliveryJob {
  const { resolve, ...rest } = options;
  const loopback = options.insecureAllowLoopbackForTests === true ? { insecureAllowLoopbackForTests: true } : {};
  return startCoreAnalyticsDeliveryJob({ ...rest, transport: options.transport ?? nodeLicenseNetwork.createTransport({ ...loopback, ...(resolve === undefined ? {} : { resolve }) }) });
}
