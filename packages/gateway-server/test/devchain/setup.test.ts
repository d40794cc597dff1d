import { parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDevPublicClient,
  createLocalFacilitator,
  devAccountKeys,
  devChainDefinition,
  MULTICALL3_ADDRESS,
  multicall3Artifact,
  setupDevChain,
  startAnvil,
  testUsdcArtifact,
  type AnvilInstance,
} from '@tollgate/gateway-server/devchain';

let anvil: AnvilInstance;
let client: ReturnType<typeof createDevPublicClient>;

beforeAll(async () => {
  anvil = await startAnvil();
  client = createDevPublicClient(devChainDefinition(31337, anvil.rpcUrl), anvil.rpcUrl);
});

afterAll(async () => {
  await anvil?.stop();
});

describe('setupDevChain', () => {
  it('installs Multicall3, deploys once, funds the roles, and is idempotent', async () => {
    const first = await setupDevChain({ rpcUrl: anvil.rpcUrl, payerUsdc: 5_000_000n });
    expect(first).toMatchObject({ chainId: 31337, network: 'eip155:31337', deployedNow: true, multicall3: MULTICALL3_ADDRESS });
    expect(await client.getCode({ address: MULTICALL3_ADDRESS })).toBe(multicall3Artifact.deployedBytecode);
    expect(await client.readContract({ address: MULTICALL3_ADDRESS, abi: multicall3Artifact.abi, functionName: 'getChainId' })).toBe(31337n);
    const balance = () => client.readContract({ address: first.usdc.address, abi: testUsdcArtifact.abi, functionName: 'balanceOf', args: [first.payer.address] });
    expect(await balance()).toBe(5_000_000n);
    expect(await client.getBalance({ address: first.payer.address })).toBe(0n);
    expect(await client.getBalance({ address: first.facilitator.address })).toBeGreaterThanOrEqual(parseEther('100'));

    const second = await setupDevChain({ rpcUrl: anvil.rpcUrl, payerUsdc: 5_000_000n });
    expect(second).toMatchObject({ deployedNow: false, usdc: first.usdc });
    expect(await balance()).toBe(5_000_000n);
  });

  it('funds a caller-chosen payer and facilitator', async () => {
    const keys = { payerPrivateKey: generatePrivateKey(), facilitatorPrivateKey: generatePrivateKey() };
    const payer = privateKeyToAccount(keys.payerPrivateKey);
    const facilitator = privateKeyToAccount(keys.facilitatorPrivateKey);
    const setup = await setupDevChain({ rpcUrl: anvil.rpcUrl, ...keys, facilitatorEth: parseEther('3') });
    expect(setup.payer.address).toBe(payer.address);
    expect(await client.readContract({ address: setup.usdc.address, abi: testUsdcArtifact.abi, functionName: 'balanceOf', args: [payer.address] })).toBe(1_000_000_000n);
    expect(await client.getBalance({ address: facilitator.address })).toBe(parseEther('3'));
  });

  it('refuses a token domain that differs from the deployed one, and a payer that is the facilitator', async () => {
    await expect(setupDevChain({ rpcUrl: anvil.rpcUrl, tokenName: 'USDC' })).rejects.toThrow(/has EIP-712 domain "USD Coin"\/"2", not the requested "USDC"\/"2"/);
    await expect(setupDevChain({ rpcUrl: anvil.rpcUrl, payerPrivateKey: devAccountKeys.facilitator })).rejects.toThrow(/must be different accounts/);
  });

  it('reports a node that does not answer', async () => {
    await expect(setupDevChain({ rpcUrl: 'http://127.0.0.1:1' })).rejects.toThrow('No JSON-RPC node answers at http://127.0.0.1:1.');
  });
});

describe('createLocalFacilitator', () => {
  it('refuses networks that do not match the node, or none', async () => {
    const privateKey = devAccountKeys.facilitator;
    await expect(createLocalFacilitator({ rpcUrl: anvil.rpcUrl, privateKey, networks: ['eip155:8453'] })).rejects.toThrow(/eip155:8453 does not match .* \(chain id 31337\)/);
    await expect(createLocalFacilitator({ rpcUrl: anvil.rpcUrl, privateKey, networks: [] })).rejects.toThrow(/at least one network/);
    const local = await createLocalFacilitator({ rpcUrl: anvil.rpcUrl, privateKey });
    expect(local).toMatchObject({ chainId: 31337, networks: ['eip155:31337'], address: privateKeyToAccount(privateKey).address });
  });
});
