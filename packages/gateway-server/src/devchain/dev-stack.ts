import { join } from 'node:path';
import type { Address, Hex } from 'viem';
import { startAnvil, type AnvilInstance } from './anvil';
import { findMissingTransactions } from './chain-state';
import { startFacilitatorServer, type FacilitatorBackend, type FacilitatorServer } from './facilitator-server';
import { createLocalFacilitator } from './local-facilitator';
import { openSettlementJournal } from './settlement-journal';
import { setupDevChain, type SetupDevChainOptions, type TokenDomain } from './setup';

/** Options of {@link startDevStack}. */
export interface DevStackOptions extends Omit<SetupDevChainOptions, 'rpcUrl'> {
  /** Directory for persistent data; the chain state lives in `<dataDir>/chain/anvil-state.json`. */
  dataDir: string;
  /** Interface for anvil and the facilitator. Default `127.0.0.1`. */
  host?: string;
  /** anvil's port; default a free one. */
  anvilPort?: number;
  /** The facilitator's port; default a free one. */
  facilitatorPort?: number;
  /** Chain id; default 31337. */
  chainId?: number;
  /** Use this anvil binary instead of the npm package's (see `StartAnvilOptions.binaryPath`). */
  anvilBinaryPath?: string;
  /** Forward anvil's own output (default false). */
  verbose?: boolean;
  /** Settlement receipt timeout of the facilitator (see `LocalFacilitatorOptions.receiptTimeoutMs`). */
  receiptTimeoutMs?: number;
  /** Unexpected facilitator failures (see `FacilitatorServerOptions.onError`). */
  onFacilitatorError?: (error: unknown) => void;
  /**
   * Seconds between periodic snapshots of the chain (when a block was mined since the last). Default 1.
   * What a hard kill of anvil can lose, apart from settlements (see `persistBeforeAnswer`).
   */
  stateIntervalSeconds?: number;
  /**
   * Answer a settlement's success only once a snapshot holding it is on disk (default true): whatever
   * the gateway records as settled from the facilitator's answer survives a hard kill of anvil.
   * Concurrent settlements share snapshots. Turn off only for throughput measurements.
   */
  persistBeforeAnswer?: boolean;
  /**
   * What to do when the restored chain lacks a settlement whose success was answered (the state files
   * went back: deleted, replaced, or a disk that lost writes): `refuse` (default) throws, `continue`
   * starts anyway (reported in `restore` and through `onWarning`).
   */
  onChainBehind?: 'refuse' | 'continue';
  /** Loud notices (chain behind, lost broadcasts, failed snapshots). Default `process.emitWarning`. */
  onWarning?: (message: string) => void;
}

/** What a start found when it restored the chain from `<dataDir>/chain/`. */
export interface ChainRestoreReport {
  /** The state file loaded; `undefined` on a fresh chain. */
  loadedFrom: string | undefined;
  /** Settlement transactions the journal listed since the last start, checked against the chain. */
  checked: number;
  /** Answered as settled, yet missing from the restored chain: the chain is behind what was reported. */
  lostAnswered: string[];
  /** Broadcast when anvil died, never answered as settled, and missing: their payments stay unsettled. */
  lostBroadcast: string[];
}

/** A running dev stack: what `npm start` prints and what the gateway is configured with. */
export interface DevStack {
  rpcUrl: string;
  chainId: number;
  /** CAIP-2 id, e.g. `eip155:31337`. */
  network: `eip155:${number}`;
  usdc: { address: Address; decimals: 6; domain: TokenDomain };
  /** Base URL of the self-hosted facilitator (`/verify`, `/settle`, `/supported`). */
  facilitatorUrl: string;
  /** The account the facilitator settles from. */
  facilitatorAddress: Address;
  /** The demo payer: test USDC, no ETH. Its key is a public dev key. */
  payer: { address: Address; privateKey: Hex };
  /** Where the chain state is kept (anvil's exit dump; the atomic snapshots go next to it). */
  statePath: string;
  /** anvil's own process id (not its guard's), e.g. to test a hard kill of the node alone. */
  anvilPid: number | undefined;
  /** What the start found when restoring the chain (see {@link ChainRestoreReport}). */
  restore: ChainRestoreReport;
  /** Stops the facilitator, then anvil (which writes the chain state). Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts everything a local x402 setup needs: anvil with its state under `dataDir` (so the chain,
 * the token address and balances survive restarts), the test USDC and Multicall3, a funded demo
 * payer, and the self-hosted facilitator over HTTP.
 *
 * @param options - Data directory, ports, keys and token domain.
 * @returns The running stack.
 * @throws Error from any step; whatever had started is stopped first.
 * @example
 * ```ts
 * import { startDevStack } from '@tollgate/gateway-server/devchain';
 * const stack = await startDevStack({ dataDir: '.tollgate' });
 * console.log(stack.rpcUrl, stack.usdc.address, stack.facilitatorUrl, stack.payer.address);
 * await stack.stop();
 * ```
 */
export async function startDevStack(options: DevStackOptions): Promise<DevStack> {
  const statePath = join(options.dataDir, 'chain', 'anvil-state.json');
  const journal = openSettlementJournal(join(options.dataDir, 'chain', 'settlements.jsonl'));
  const warn = options.onWarning ?? ((message: string) => process.emitWarning(message, 'TollgateDevChainWarning'));
  let anvil: AnvilInstance | undefined;
  let server: FacilitatorServer | undefined;
  try {
    anvil = await startAnvil({
      statePath,
      stateIntervalSeconds: options.stateIntervalSeconds ?? 1,
      onSnapshotError: (error) => warn(`Snapshot of the dev chain failed: ${error instanceof Error ? error.message : String(error)}`),
      host: options.host,
      port: options.anvilPort,
      chainId: options.chainId,
      binaryPath: options.anvilBinaryPath,
      silent: !options.verbose,
    });
    const restore = await checkRestoredChain(anvil, journal.read(), statePath, options.onChainBehind ?? 'refuse', warn);
    journal.reset();
    const chain = await setupDevChain({ ...options, rpcUrl: anvil.rpcUrl });
    const local = await createLocalFacilitator({
      rpcUrl: anvil.rpcUrl,
      privateKey: chain.facilitator.privateKey,
      networks: [chain.network],
      receiptTimeoutMs: options.receiptTimeoutMs,
      // Before its receipt is awaited: a hard kill of anvil from here on may lose it.
      onTransactionBroadcast: (tx) => journal.append({ tx, stage: 'broadcast' }),
    });
    const node = anvil;
    server = await startFacilitatorServer({
      facilitator: options.persistBeforeAnswer === false ? local.facilitator : persistingBeforeAnswer(local.facilitator, node, journal),
      host: options.host,
      port: options.facilitatorPort,
      onError: options.onFacilitatorError,
    });
    const started = { anvil, server };
    let stopping: Promise<void> | undefined;
    return {
      rpcUrl: anvil.rpcUrl,
      chainId: chain.chainId,
      network: chain.network,
      usdc: chain.usdc,
      facilitatorUrl: server.url,
      facilitatorAddress: local.address,
      payer: chain.payer,
      statePath,
      anvilPid: anvil.anvilPid,
      restore,
      stop() {
        stopping ??= (async () => {
          await started.server.stop();
          await started.anvil.stop();
        })();
        return stopping;
      },
    };
  } catch (error) {
    await server?.stop();
    await anvil?.stop();
    throw error;
  }
}

/**
 * The facilitator, except that a successful settle is answered only after a snapshot holding it is on
 * disk. When anvil dies first, the settle fails (500): the caller treats its outcome as unknown and asks
 * the chain later, which, restored without it, says it never happened; the two agree.
 */
function persistingBeforeAnswer(facilitator: FacilitatorBackend, anvil: AnvilInstance, journal: ReturnType<typeof openSettlementJournal>): FacilitatorBackend {
  return {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    getSupported: () => facilitator.getSupported(),
    async settle(payload, requirements) {
      const result = await facilitator.settle(payload, requirements);
      if (!result.success) return result;
      try {
        await anvil.snapshot();
      } catch (cause) {
        throw new Error(`Settlement ${result.transaction} was mined, but the chain node stopped before it was saved; a restart will not hold it.`, { cause });
      }
      journal.append({ tx: result.transaction, stage: 'answered' });
      return result;
    },
  };
}

/** Checks the journal's settlements against the restored chain; refuses (throws) when an answered one is gone. */
async function checkRestoredChain(
  anvil: AnvilInstance,
  entries: ReturnType<ReturnType<typeof openSettlementJournal>['read']>,
  statePath: string,
  onChainBehind: 'refuse' | 'continue',
  warn: (message: string) => void,
): Promise<ChainRestoreReport> {
  const answered = new Set(entries.filter((entry) => entry.stage === 'answered').map((entry) => entry.tx));
  const all = [...new Set(entries.map((entry) => entry.tx))];
  const missing = await findMissingTransactions(anvil.rpcUrl, all);
  const report: ChainRestoreReport = {
    loadedFrom: anvil.restoredFrom?.load,
    checked: all.length,
    lostAnswered: missing.filter((tx) => answered.has(tx)),
    lostBroadcast: missing.filter((tx) => !answered.has(tx)),
  };
  for (const candidate of anvil.restoredFrom?.candidates ?? []) {
    if (candidate.kind === 'unreadable') warn(`Dev chain state file ${candidate.path} is unreadable (${candidate.reason}); started from ${report.loadedFrom ?? 'a fresh chain'}.`);
  }
  if (report.lostBroadcast.length > 0) {
    warn(
      `anvil was killed while settling: ${report.lostBroadcast.length} settlement transaction(s) broadcast but never answered are not on the restored chain ` +
        `(${report.lostBroadcast.join(', ')}). Their payments were never reported settled by the facilitator; the gateway keeps them pending and fails them once their authorization expires.`,
    );
  }
  if (report.lostAnswered.length > 0) {
    const message =
      `The dev chain restored from ${report.loadedFrom ?? 'nothing (no state file)'} is BEHIND what the facilitator reported: ${report.lostAnswered.length} settlement(s) answered as settled are missing ` +
      `(${report.lostAnswered.join(', ')}). The gateway database records payments this chain does not hold. Start over by deleting the data directory (chain and database), ` +
      `or accept the divergence by deleting ${statePath.replace(/anvil-state\.json$/, 'settlements.jsonl')}.`;
    if (onChainBehind === 'refuse') throw new Error(message);
    warn(message);
  }
  return report;
}
