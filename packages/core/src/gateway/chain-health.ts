import { chainRead } from '../chain/errors';
import type { Clock } from '../time/clock';
import type { RpcClients } from './rpc-clients';

/** The reachability of one configured chain RPC. The URL is never reported (it often embeds a provider key). */
export interface ChainHealth {
  readonly network: string;
  readonly ok: boolean;
  /** The chain id the node reported, when it answered. */
  readonly chainId?: number;
  /** Why it is not ok: no answer in time, or a node of another chain. */
  readonly error?: 'unreachable' | 'wrong_chain';
}

/** Checks every configured RPC, with a short cache so a busy health endpoint does not hammer the nodes. */
export interface ChainHealthProbe {
  check(): Promise<readonly ChainHealth[]>;
}

/** Options of {@link createChainHealthProbe}. */
export interface ChainHealthProbeOptions {
  readonly rpc: RpcClients;
  readonly clock: Clock;
  /** How long a result is reused. Default 5 000 ms. */
  readonly cacheMs?: number;
  /** Deadline of each `eth_chainId`. Default 2 000 ms. */
  readonly timeoutMs?: number;
}

/**
 * Probes each configured network with `eth_chainId` in parallel and checks that the node serves the
 * expected chain. Concurrent calls share one probe; results are cached for `cacheMs`.
 *
 * @param options - Clients, clock, cache time and timeout.
 * @returns The probe.
 * @example
 * ```ts
 * import { createChainHealthProbe, systemClock } from '@tollgate/core';
 * const probe = createChainHealthProbe({ rpc, clock: systemClock });
 * const chains = await probe.check(); // [{ network: 'base', ok: true, chainId: 8453 }]
 * ```
 */
export function createChainHealthProbe(options: ChainHealthProbeOptions): ChainHealthProbe {
  const cacheMs = options.cacheMs ?? 5_000;
  const timeoutMs = options.timeoutMs ?? 2_000;
  let cached: { at: number; result: Promise<readonly ChainHealth[]> } | undefined;

  async function probe(): Promise<readonly ChainHealth[]> {
    return Promise.all(
      options.rpc.configured.map(async ({ network, client }): Promise<ChainHealth> => {
        try {
          const chainId = await chainRead('eth_chainId', timeoutMs, () => client.getChainId());
          return chainId === network.chainId ? { network: network.name, ok: true, chainId } : { network: network.name, ok: false, chainId, error: 'wrong_chain' };
        } catch {
          return { network: network.name, ok: false, error: 'unreachable' };
        }
      }),
    );
  }

  return {
    check() {
      const now = options.clock.now();
      if (cached === undefined || now - cached.at >= cacheMs || now < cached.at) cached = { at: now, result: probe() };
      return cached.result;
    },
  };
}
