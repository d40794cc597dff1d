// A hard kill (SIGKILL) of anvil alone, the dev stack's process staying alive: the chain restarted on
// the same data dir must still hold every settlement the facilitator answered (it answers only once a
// snapshot holding it is on disk), and periodic snapshots keep other transactions too. When the state
// files went back anyway (simulated by restoring an older snapshot), the restart refuses, naming what
// the chain lost, instead of silently diverging from what the gateway recorded.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWalletClient, type Address, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createDevPublicClient,
  devAccountKeys,
  devChainDefinition,
  devTransport,
  snapshotPathOf,
  startDevStack,
  testUsdcArtifact,
  type DevStack,
  type DevStackOptions,
} from '@tollgate/gateway-server/devchain';
import { settleThroughStack } from './helpers';

const MERCHANT: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const scratch = mkdtempSync(join(tmpdir(), 'tollgate-anvil-kill-'));
const running: DevStack[] = [];

afterAll(async () => {
  await Promise.all(running.map((stack) => stack.stop()));
  rmSync(scratch, { recursive: true, force: true });
});

async function start(dataDir: string, options: Partial<DevStackOptions> = {}): Promise<DevStack> {
  const stack = await startDevStack({ dataDir, onWarning: () => undefined, ...options });
  running.push(stack);
  return stack;
}

function clientOf(stack: DevStack) {
  return createDevPublicClient(devChainDefinition(stack.chainId, stack.rpcUrl), stack.rpcUrl);
}

function usdcBalance(stack: DevStack, owner: Address): Promise<bigint> {
  return clientOf(stack).readContract({ address: stack.usdc.address, abi: testUsdcArtifact.abi, functionName: 'balanceOf', args: [owner] });
}

/** One x402 payment settled through the stack's facilitator over HTTP; returns its transaction. */
async function pay(stack: DevStack, amount = '250000'): Promise<Hash> {
  return (await settleThroughStack(stack, MERCHANT, amount)).transaction;
}

/** SIGKILL to anvil itself (not its guard, not this process), then waits until it no longer answers. */
async function killAnvil(stack: DevStack): Promise<void> {
  expect(stack.anvilPid).toBeGreaterThan(0);
  expect(readFileSync(`/proc/${stack.anvilPid}/cmdline`, 'utf8').split('\0')[0]).toMatch(/anvil$/);
  process.kill(stack.anvilPid!, 'SIGKILL');
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    const answered = await fetch(stack.rpcUrl, { method: 'POST', signal: AbortSignal.timeout(500) }).then(() => true, () => false);
    if (!answered) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('anvil still answers after SIGKILL');
}

function snapshotBlock(stack: DevStack): bigint | undefined {
  const path = snapshotPathOf(stack.statePath);
  if (!existsSync(path)) return undefined;
  return BigInt((JSON.parse(readFileSync(path, 'utf8')) as { best_block_number: string | number }).best_block_number);
}

describe('a hard kill of anvil alone', () => {
  it('keeps every answered settlement and, after the periodic snapshot, other transactions too', async () => {
    const dataDir = join(scratch, 'kept');
    const first = await start(dataDir);
    const payments = [await pay(first), await pay(first), await pay(first)];
    // A transaction the facilitator did not make: only the periodic snapshot keeps it.
    const holder = privateKeyToAccount(generatePrivateKey()).address;
    const deployer = createWalletClient({ account: privateKeyToAccount(devAccountKeys.deployer), chain: devChainDefinition(first.chainId, first.rpcUrl), transport: devTransport(first.rpcUrl) });
    const mint = await deployer.writeContract({ address: first.usdc.address, abi: testUsdcArtifact.abi, functionName: 'mint', args: [holder, 777n] });
    const mintBlock = (await clientOf(first).waitForTransactionReceipt({ hash: mint, pollingInterval: 50 })).blockNumber;
    for (const deadline = Date.now() + 15_000; (snapshotBlock(first) ?? -1n) < mintBlock; ) {
      if (Date.now() > deadline) throw new Error('no periodic snapshot reached the mint block');
      await new Promise((r) => setTimeout(r, 100));
    }
    const balances = { payer: await usdcBalance(first, first.payer.address), merchant: await usdcBalance(first, MERCHANT), holder: await usdcBalance(first, holder) };
    expect(balances).toEqual({ payer: 1_000_000_000n - 750_000n, merchant: 750_000n, holder: 777n });

    await killAnvil(first);
    await first.stop();
    // anvil never exited gracefully, so its own exit dump was never written: only our snapshots exist.
    expect(existsSync(first.statePath)).toBe(false);

    const second = await start(dataDir);
    expect(second.restore).toEqual({ loadedFrom: snapshotPathOf(second.statePath), checked: 3, lostAnswered: [], lostBroadcast: [] });
    expect({ payer: await usdcBalance(second, second.payer.address), merchant: await usdcBalance(second, MERCHANT), holder: await usdcBalance(second, holder) }).toEqual(balances);
    for (const hash of [...payments, mint]) expect((await clientOf(second).getTransactionReceipt({ hash })).status).toBe('success');
    // The restarted stack settles on top of the restored chain.
    await pay(second);
    expect(await usdcBalance(second, MERCHANT)).toBe(1_000_000n);
    await second.stop();
  });

  it('refuses to start on a chain that lost an answered settlement, naming it, unless told to continue', async () => {
    const dataDir = join(scratch, 'behind');
    const first = await start(dataDir);
    await pay(first);
    const older = join(scratch, 'older-snapshot.json');
    copyFileSync(snapshotPathOf(first.statePath), older);
    const lost = await pay(first);
    await killAnvil(first);
    await first.stop();
    // The state files went back (a lost write, a restored backup): the chain is behind the answers.
    copyFileSync(older, snapshotPathOf(first.statePath));

    await expect(start(dataDir)).rejects.toThrow(new RegExp(`BEHIND what the facilitator reported: 1 settlement\\(s\\) answered as settled are missing \\(${lost}\\)`));
    // Refusing leaves the journal as it was: a second start refuses too.
    await expect(start(dataDir)).rejects.toThrow(/BEHIND/);

    const warnings: string[] = [];
    const accepted = await start(dataDir, { onChainBehind: 'continue', onWarning: (message) => warnings.push(message) });
    expect(accepted.restore.lostAnswered).toEqual([lost]);
    expect(warnings.join('\n')).toContain(lost);
    expect(await usdcBalance(accepted, MERCHANT)).toBe(250_000n);
    await accepted.stop();
    // Accepted once: the journal was reset, so the next start is clean.
    const next = await start(dataDir);
    expect(next.restore).toMatchObject({ lostAnswered: [], lostBroadcast: [] });
    await next.stop();
  });
});
