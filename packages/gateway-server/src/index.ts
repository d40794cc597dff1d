/**
 * `@tollgate/gateway-server`: the x402 v2 payment gateway as a ready Express server.
 *
 * @packageDocumentation
 */
export { loadGatewayConfig, gatewayDatabaseDir, type GatewayConfig } from './config';
export { createGatewayApp, createGatewayListener, type GatewayAppOptions } from './app';
export {
  startDevMode,
  readDevStackFile,
  devStackFilePath,
  devChainDir,
  type DevMode,
  type DevModeLogger,
  type DevChainInfo,
  type DevStackFile,
} from './dev-mode';
export { startGatewayServer, runGatewayFromEnv, type RunningGateway, type GatewayContext, type StartGatewayOptions } from './server';
export { healthRoutes, type HealthDependencies } from './routes/health';
export { resolveGatewaySecret, gatewaySecretPath } from './secret-file';
export type { SecretWarnings } from './kept-secret';
export { resolveGatewaySigningKey, gatewaySigningKeyPath } from './signing-key';
// The secp256k1 loader moved to @tollgate/core/node (embedders of createGateway use it too); re-exported so imports from here keep working.
export { loadSecp256k1Backend, loadNativeSecp256k1, type NativeSecp256k1Options, type NativeSecp256k1Unavailable, type Secp256k1BackendLogger } from '@tollgate/core/node';
export * from './notifications';
