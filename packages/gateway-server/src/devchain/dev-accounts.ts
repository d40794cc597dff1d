import { keccak256, stringToHex, type Hex } from 'viem';

/**
 * Private keys of the dev chain's well-known roles. **Public knowledge, for local chains only**: never
 * fund these addresses on a real network.
 *
 * - `deployer`: derived from a fixed label (not one of anvil's accounts), so nothing else spends its
 *   nonce 0 and the test USDC lands at the same address on every fresh chain.
 * - `facilitator`: anvil's dev account #1 (from the public "test test … junk" mnemonic); pays gas.
 * - `payer`: anvil's dev account #2; holds test USDC but no ETH (setup zeroes it), because EIP-3009
 *   payments are gasless for the payer.
 *
 * @example
 * ```ts
 * import { devAccountKeys } from '@tollgate/gateway-server/devchain';
 * import { privateKeyToAccount } from 'viem/accounts';
 * console.log(privateKeyToAccount(devAccountKeys.payer).address); // 0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC
 * ```
 */
export const devAccountKeys = {
  deployer: keccak256(stringToHex('tollgate/devchain/test-usdc-deployer')),
  facilitator: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  payer: '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
} as const satisfies Record<string, Hex>;

/**
 * Address of the canonical Multicall3 deployment, the same on every EVM chain; `setupDevChain`
 * installs a compatible subset there.
 *
 * @example
 * ```ts
 * import { MULTICALL3_ADDRESS, multicall3Artifact } from '@tollgate/gateway-server/devchain';
 * await client.readContract({ address: MULTICALL3_ADDRESS, abi: multicall3Artifact.abi, functionName: 'getBlockNumber' });
 * ```
 */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;
