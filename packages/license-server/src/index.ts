/**
 * `@tollgate/license-server`: the software-licensing service as a ready Express server.
 *
 * @packageDocumentation
 */
export { loadLicenseConfig, licenseDatabaseDir, type LicenseConfig } from './config';
export { createLicenseApp, type LicenseRouteTables } from './app';
export { startLicenseServer, runLicenseFromEnv, type RunningLicenseServer, type LicenseContext, type StartLicenseOptions } from './server';
export { healthRoutes } from './routes/health';
