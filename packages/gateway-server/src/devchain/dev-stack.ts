import { join } from 'node:path';
import type { Address, Hex } from 'viem';
import { startAnvil, type AnvilInstance } from './anvil';
import { startFacilitatorServer, type FacilitatorServer } from './facilitator-server';
import { createLocalFacilitator } from './local-facilitator';
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
  /** Where the chain state is kept. */
  statePath: string;
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
  let anvil: AnvilInstance | undefined;
  let server: FacilitatorServer | undefined;
  try {
    anvil = await startAnvil({
      statePath,
      host: options.host,
      port: options.anvilPort,
      chainId: options.chainId,
      binaryPath: options.anvilBinaryPath,
      silent: !options.verbose,
    });
    const chain = await setupDevChain({ ...options, rpcUrl: anvil.rpcUrl });
    const local = await createLocalFacilitator({
      rpcUrl: anvil.rpcUrl,
      privateKey: chain.facilitator.privateKey,
      networks: [chain.network],
      receiptTimeoutMs: options.receiptTimeoutMs,
    });
    server = await startFacilitatorServer({
      facilitator: local.facilitator,
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
