import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { getContractAddress, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { findAuthorizationSettlement } from '@tollgate/core/chain';
import { createDevPublicClient, devAccountKeys, devChainDefinition, startDevStack, testUsdcArtifact, type DevStack } from '@tollgate/gateway-server/devchain';
import { settleThroughStack } from './helpers';

const MERCHANT: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const scratch = mkdtempSync(join(tmpdir(), 'tollgate-devstack-test-'));
const running: DevStack[] = [];

afterAll(async () => {
  await Promise.all(running.map((stack) => stack.stop()));
  rmSync(scratch, { recursive: true, force: true });
});

async function start(dataDir: string): Promise<DevStack> {
  const stack = await startDevStack({ dataDir });
  running.push(stack);
  return stack;
}

function reader(stack: DevStack) {
  const client = createDevPublicClient(devChainDefinition(stack.chainId, stack.rpcUrl), stack.rpcUrl);
  const usdcBalance = (account: Address) => client.readContract({ address: stack.usdc.address, abi: testUsdcArtifact.abi, functionName: 'balanceOf', args: [account] });
  return { client, usdcBalance };
}

describe('startDevStack', () => {
  it('starts a ready chain and facilitator, and keeps address, balances and history across a restart', async () => {
    const dataDir = join(scratch, 'persistent');
    const first = await start(dataDir);
    const expectedUsdc = getContractAddress({ from: privateKeyToAccount(devAccountKeys.deployer).address, nonce: 0n });
    expect(first).toMatchObject({
      chainId: 31337,
      network: 'eip155:31337',
      usdc: { address: expectedUsdc, decimals: 6, domain: { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: expectedUsdc } },
      payer: { address: privateKeyToAccount(devAccountKeys.payer).address, privateKey: devAccountKeys.payer },
      facilitatorAddress: privateKeyToAccount(devAccountKeys.facilitator).address,
      statePath: join(dataDir, 'chain', 'anvil-state.json'),
    });
    const before = reader(first);
    expect(await before.usdcBalance(first.payer.address)).toBe(1_000_000_000n);
    expect(await before.client.getBalance({ address: first.payer.address })).toBe(0n);
    expect((await new HTTPFacilitatorClient({ url: first.facilitatorUrl }).getSupported()).kinds.map((k) => k.network)).toEqual(['eip155:31337']);

    const payment = await settleThroughStack(first, MERCHANT);
    const balances = { payer: await before.usdcBalance(first.payer.address), merchant: await before.usdcBalance(MERCHANT) };
    expect(balances.payer).toBe(1_000_000_000n - 250_000n);
    const headBefore = await before.client.getBlockNumber({ cacheTime: 0 });

    await first.stop();
    expect(existsSync(first.statePath)).toBe(true);
    await expect(fetch(first.facilitatorUrl + '/supported')).rejects.toThrow();

    const second = await start(dataDir);
    const after = reader(second);
    expect(second.usdc.address).toBe(expectedUsdc);
    expect({ payer: await after.usdcBalance(second.payer.address), merchant: await after.usdcBalance(MERCHANT) }).toEqual(balances);
    expect(await after.client.getBlockNumber({ cacheTime: 0 })).toBeGreaterThanOrEqual(headBefore);
    const evidence = await findAuthorizationSettlement({
      client: after.client, token: second.usdc.address, authorizer: second.payer.address, nonce: payment.nonce, payTo: MERCHANT, value: 250_000n, maxBlockSpan: 1_000,
    });
    expect(evidence).toMatchObject({ status: 'settled', txHash: payment.transaction });
    await settleThroughStack(second, MERCHANT);
    await second.stop();
  });

  it('deploys the token at the same address on a fresh chain and funds the payer', async () => {
    const fresh = await start(join(scratch, 'fresh'));
    expect(fresh.usdc.address).toBe(getContractAddress({ from: privateKeyToAccount(devAccountKeys.deployer).address, nonce: 0n }));
    expect(await reader(fresh).usdcBalance(fresh.payer.address)).toBe(1_000_000_000n);
    await fresh.stop();
  });
});
