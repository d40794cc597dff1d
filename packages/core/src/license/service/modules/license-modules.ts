import { analyticsModule } from './analytics-module';
import { analyticsSubscriptionsModule } from './analytics-subscriptions-module';
import { assetKeysModule } from './asset-keys-module';
import { billingModule } from './billing-module';
import { dsrModule } from './dsr-module';
import { epochsModule } from './epochs-module';
import { integrityModule } from './integrity-module';
import type { LicenseModule, LicenseModuleContext } from './license-module';
import { telemetryModule } from './telemetry-module';

/**
 * Every feature module of the license server, in the order their routes are registered.
 *
 * @param context - What the modules are built from.
 * @returns The modules (their jobs start with the service's workers).
 * @example
 * ```ts
 * const modules = licenseModules({ options, sql, audit, trust, clock, masterKey, pinnedRoots, logger, crypto, network, overrides });
 * ```
 */
export function licenseModules(context: LicenseModuleContext): LicenseModule[] {
  return [
    epochsModule(context),
    assetKeysModule(context),
    integrityModule(context),
    billingModule(context),
    telemetryModule(context),
    analyticsModule(context),
    analyticsSubscriptionsModule(context),
    dsrModule(context),
  ];
}
