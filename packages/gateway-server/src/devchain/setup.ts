import { createTestClient, createWalletClient, getContractAddress, parseEther, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { multicall3Artifact, testUsdcArtifact } from './artifacts';
import { createDevPublicClient, devChainDefinition, devTransport, readChainId } from './chain';
import { devAccountKeys, MULTICALL3_ADDRESS } from './dev-accounts';

/** Options of {@link setupDevChain}. All keys default to {@link devAccountKeys}. */
export interface SetupDevChainOptions {
  /** JSON-RPC endpoint of an anvil node (the `anvil_*` cheat codes are required). */
  rpcUrl: string;
  /** Deploys the token at its nonce 0, which fixes the token address. */
  deployerPrivateKey?: Hex;
  /** The demo payer: receives test USDC, holds no ETH. */
  payerPrivateKey?: Hex;
  /** The facilitator account that pays gas for settlements. */
  facilitatorPrivateKey?: Hex;
  /** EIP-712 domain name and ERC-20 name. Default "USD Coin" (Base mainnet's); Base Sepolia uses "USDC". */
  tokenName?: string;
  /** EIP-712 domain version. Default "2". */
  tokenVersion?: string;
  /** Atomic units (6 decimals) minted to the payer whenever its balance is zero. Default 1 000 USDC. */
  payerUsdc?: bigint;
  /** The facilitator is topped up to this many wei when it holds less. Default 100 ETH. */
  facilitatorEth?: bigint;
}

/** EIP-712 domain of the token, as x402 `extra` and EIP-3009 signers need it. */
export interface TokenDomain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: Address;
}

/** What {@link setupDevChain} installed. */
export interface DevChainSetup {
  chainId: number;
  /** CAIP-2 network id, e.g. `eip155:31337`. */
  network: `eip155:${number}`;
  /** The test USDC token (6 decimals). */
  usdc: { address: Address; decimals: 6; domain: TokenDomain };
  /** True when this call deployed the token; false when it was already on the chain. */
  deployedNow: boolean;
  multicall3: Address;
  deployer: Address;
  payer: { address: Address; privateKey: Hex };
  facilitator: { address: Address; privateKey: Hex };
}

/**
 * Prepares an anvil chain for x402 development. Idempotent: safe on every start, also on a chain
 * restored from a state file.
 *
 * 1. Installs Multicall3 at its canonical address (`anvil_setCode`); the x402 facilitator diagnoses
 *    failed simulations (e.g. "nonce already used") through it.
 * 2. Deploys TestUSDC from the deployer at nonce 0, unless code is already there. The address depends
 *    only on the deployer key, so it is the same on every fresh chain.
 * 3. Sets the payer's ETH to 0 and mints `payerUsdc` to it when its USDC balance is zero.
 * 4. Tops the facilitator up to `facilitatorEth` (`anvil_setBalance`).
 *
 * @param options - RPC endpoint, keys and amounts.
 * @returns Addresses, keys and the token's EIP-712 domain.
 * @throws Error when the node does not answer, when the deployer's nonce 0 was spent on something
 *   else, or when the token already deployed there has another name/version than requested.
 * @example
 * ```ts
 * import { startAnvil, setupDevChain } from '@tollgate/gateway-server/devchain';
 * const anvil = await startAnvil();
 * const chain = await setupDevChain({ rpcUrl: anvil.rpcUrl });
 * console.log(chain.usdc.address, chain.payer.address);
 * ```
 */
export async function setupDevChain(options: SetupDevChainOptions): Promise<DevChainSetup> {
  const { rpcUrl } = options;
  const tokenName = options.tokenName ?? 'USD Coin';
  const tokenVersion = options.tokenVersion ?? '2';
  const deployer = privateKeyToAccount(options.deployerPrivateKey ?? devAccountKeys.deployer);
  const payerKey = options.payerPrivateKey ?? devAccountKeys.payer;
  const facilitatorKey = options.facilitatorPrivateKey ?? devAccountKeys.facilitator;
  const payer = privateKeyToAccount(payerKey);
  const facilitator = privateKeyToAccount(facilitatorKey);
  if (payer.address === facilitator.address) throw new Error('The demo payer and the facilitator must be different accounts.');

  const chainId = await readChainId(rpcUrl);
  const chain = devChainDefinition(chainId, rpcUrl);
  const client = createDevPublicClient(chain, rpcUrl);
  const deployerWallet = createWalletClient({ account: deployer, chain, transport: devTransport(rpcUrl), pollingInterval: 50 });
  const cheats = createTestClient({ mode: 'anvil', chain, transport: devTransport(rpcUrl) });
  const setBalance = (address: Address, value: bigint) => cheats.setBalance({ address, value });

  await cheats.setCode({ address: MULTICALL3_ADDRESS, bytecode: multicall3Artifact.deployedBytecode });

  const usdcAddress = getContractAddress({ from: deployer.address, nonce: 0n });
  let deployedNow = false;
  const existing = await client.getCode({ address: usdcAddress });
  if (existing === undefined || existing === '0x') {
    const nonce = await client.getTransactionCount({ address: deployer.address });
    if (nonce !== 0) {
      throw new Error(`Deployer ${deployer.address} already used nonce 0 but ${usdcAddress} has no code; use a fresh chain or another deployer key.`);
    }
    if ((await client.getBalance({ address: deployer.address })) < parseEther('1')) await setBalance(deployer.address, parseEther('10'));
    const hash = await deployerWallet.deployContract({
      abi: testUsdcArtifact.abi,
      bytecode: testUsdcArtifact.bytecode,
      args: [tokenName, tokenVersion],
    });
    const receipt = await client.waitForTransactionReceipt({ hash, timeout: 30_000 });
    if (receipt.status !== 'success' || receipt.contractAddress?.toLowerCase() !== usdcAddress.toLowerCase()) {
      throw new Error(`TestUSDC deployment failed (tx ${hash}).`);
    }
    deployedNow = true;
  }

  const [, name, version] = await client.readContract({ address: usdcAddress, abi: testUsdcArtifact.abi, functionName: 'eip712Domain' });
  if (name !== tokenName || version !== tokenVersion) {
    throw new Error(
      `The token at ${usdcAddress} has EIP-712 domain "${name}"/"${version}", not the requested "${tokenName}"/"${tokenVersion}". ` +
        'Use a fresh state directory or another deployer key.',
    );
  }

  await setBalance(payer.address, 0n);
  const payerBalance = await client.readContract({ address: usdcAddress, abi: testUsdcArtifact.abi, functionName: 'balanceOf', args: [payer.address] });
  const payerUsdc = options.payerUsdc ?? 1_000_000_000n;
  if (payerBalance === 0n && payerUsdc > 0n) {
    if ((await client.getBalance({ address: deployer.address })) < parseEther('1')) await setBalance(deployer.address, parseEther('10'));
    const hash = await deployerWallet.writeContract({
      address: usdcAddress,
      abi: testUsdcArtifact.abi,
      functionName: 'mint',
      args: [payer.address, payerUsdc],
    });
    const receipt = await client.waitForTransactionReceipt({ hash, timeout: 30_000 });
    if (receipt.status !== 'success') throw new Error(`Minting test USDC to ${payer.address} failed (tx ${hash}).`);
  }

  const facilitatorEth = options.facilitatorEth ?? parseEther('100');
  if ((await client.getBalance({ address: facilitator.address })) < facilitatorEth) await setBalance(facilitator.address, facilitatorEth);

  return {
    chainId,
    network: `eip155:${chainId}`,
    usdc: { address: usdcAddress, decimals: 6, domain: { name, version, chainId, verifyingContract: usdcAddress } },
    deployedNow,
    multicall3: MULTICALL3_ADDRESS,
    deployer: deployer.address,
    payer: { address: payer.address, privateKey: payerKey },
    facilitator: { address: facilitator.address, privateKey: facilitatorKey },
  };
}
