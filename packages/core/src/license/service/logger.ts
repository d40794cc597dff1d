/**
 * Where the license service's units log: structured object first, message second (pino fits). `isLevelEnabled`
 * is pino's level check; when present and `info` is off, per-request logging costs nothing.
 *
 * @example
 * ```ts
 * import type { LicenseLogSink } from '@tollgate/core/license';
 * const sink: LicenseLogSink = { info: console.info, warn: console.warn, error: console.error };
 * ```
 */
export interface LicenseLogSink {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
  isLevelEnabled?(level: string): boolean;
}

/**
 * The logger port of `createLicenseService`: `{ debug, info, warn, error }(object, message)`. A pino
 * logger satisfies it as it is.
 *
 * @example
 * ```ts
 * import pino from 'pino';
 * import type { LicenseLogger } from '@tollgate/core';
 * const logger: LicenseLogger = pino();
 * ```
 */
export interface LicenseLogger extends LicenseLogSink {
  debug(object: object, message?: string): void;
}
