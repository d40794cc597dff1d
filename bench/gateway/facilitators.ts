/**
 * The chain and the two facilitators the gateway benchmark settles through, in a process of their own:
 * anvil with the dev stack's contracts, our self-hosted facilitator (`ours-fac`) and the one the x402
 * documentation shows (`doc-fac`, `official-facilitator.ts`). In every x402 deployment the facilitator
 * is another service (usually another operator's), so it must not share an event loop with the gateways
 * under test: there, a gateway doing more work on its own thread would also slow the facilitator's
 * answers to it, and the other stack's, and the comparison would mix the two.
 * Prints one JSON line ({@link FacilitatorTargets}), then serves until stdin closes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevStack } from '@tollgate/gateway-server/devchain';
import { startOfficialFacilitator } from './official-facilitator';

/** What the servers process needs of the chain and the facilitators. */
export interface FacilitatorTargets {
  rpcUrl: string;
  chainId: number;
  network: `eip155:${number}`;
  usdc: { address: `0x${string}`; domain: { name: string; version: string } };
  payerKey: `0x${string}`;
  /** Facilitator base URLs by name: `ours-fac`, `doc-fac`. */
  facilitators: Record<'ours-fac' | 'doc-fac', string>;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-chain-'));
  // No snapshot before each settle answer: the bench prices the gateways, not the dev chain's durability.
  const stack = await startDevStack({ dataDir, persistBeforeAnswer: false });
  const documented = await startOfficialFacilitator(stack.rpcUrl, stack.chainId);
  const targets: FacilitatorTargets = {
    rpcUrl: stack.rpcUrl,
    chainId: stack.chainId,
    network: stack.network,
    usdc: { address: stack.usdc.address, domain: { name: stack.usdc.domain.name, version: stack.usdc.domain.version } },
    payerKey: stack.payer.privateKey,
    facilitators: { 'ours-fac': stack.facilitatorUrl, 'doc-fac': documented.url },
  };
  process.stdout.write(`${JSON.stringify(targets)}\n`);
  process.stdin.resume();
  process.stdin.on('end', async () => {
    await documented.close();
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench facilitators failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
