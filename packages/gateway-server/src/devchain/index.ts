/**
 * Local development chain for Tollgate: anvil from npm, an EIP-3009 test USDC, Multicall3, and a
 * self-hosted x402 facilitator built on the official `@x402/*` packages. Node-only, dev and test use.
 *
 * @packageDocumentation
 */
export { startAnvil, resolveAnvilBinary, findFreePort, type StartAnvilOptions, type AnvilInstance } from './anvil';
export { setupDevChain, type SetupDevChainOptions, type DevChainSetup, type TokenDomain } from './setup';
export { createLocalFacilitator, type LocalFacilitatorOptions, type LocalFacilitator } from './local-facilitator';
export { FacilitatorRpcError } from './facilitator-signer';
export {
  startFacilitatorServer,
  type FacilitatorServerOptions,
  type FacilitatorServer,
  type FacilitatorBackend,
  type SettleResponseControl,
} from './facilitator-server';
export { startDevStack, type DevStackOptions, type DevStack, type ChainRestoreReport } from './dev-stack';
export { chooseStateFile, findMissingTransactions, snapshotPathOf, type StateFileCandidate } from './chain-state';
export { devAccountKeys, MULTICALL3_ADDRESS } from './dev-accounts';
export { devChainDefinition, createDevPublicClient, devTransport } from './chain';
export { testUsdcArtifact, multicall3Artifact } from './artifacts';
