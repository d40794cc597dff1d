import { getAddress, pad, type Address, type Hash } from 'viem';
import type { Clock } from '../../time/clock';
import { createChainReads, logPosition } from './chain-reads';
import type { EvidenceNetworks } from './evidence-networks';
import type { EvidenceSettings } from './evidence-settings';
import { notVisible, viewerOwns, type EvidenceViewer } from './evidence-viewer';
import { decodeHistoryCursor, encodeHistoryCursor, invalidHistoryCursor, type HistoryCursorState } from './history-cursor';
import { txHistoryLimits } from './schemas';
import { decodeTokenTransfer, transferTopic, type LocatedTransfer } from './transfer-logs';

/** A `GET /txs` request after validation. A cursor alone is enough; without one, `payTo` or `from` is required. */
export interface TransferHistoryRequest {
  readonly network?: string | undefined;
  readonly payTo?: Address | undefined;
  readonly from?: Address | undefined;
  readonly fromBlock?: number | undefined;
  /** Page size; when omitted, the cursor's, else {@link txHistoryLimits}`.default`. */
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
  readonly viewer: EvidenceViewer;
}

/** One page of `GET /txs`, newest first. */
export interface TransferHistoryPage {
  readonly network: string;
  readonly asset: 'USDC';
  readonly items: readonly LocatedTransfer[];
  /** The blocks this page covered (decimal strings), or `null` when `from_block` is beyond the head. */
  readonly scanned: { readonly fromBlock: string; readonly toBlock: string } | null;
  /** Present while older blocks of the walk remain. */
  readonly nextCursor?: string;
}

/** `GET /txs` as a service. */
export interface TransferHistory {
  /**
   * A page of USDC transfers matching the filters.
   *
   * @throws GatewayError `invalid_request` (bad or mismatched cursor, unknown network), `not_found`
   *   (merchant viewer, neither filter is its payTo); ChainReadError `rpc_unavailable`.
   */
  page(request: TransferHistoryRequest): Promise<TransferHistoryPage>;
}

// The page's fields besides its items (network, scanned range, a cursor of ~400 characters).
const envelopeBytes = 1_024;

interface Position {
  readonly block: number;
  readonly beforeLogIndex: number | null;
}

/**
 * Creates the transfer history. Contract:
 *
 * - **Order and stability.** Items are USDC `Transfer` logs newest first by (block, log index). The first
 *   page fixes the walk's range `[from_block, head]`; each page continues strictly after the last item
 *   it returned (or after the last block it finished), so across pages and windows no transfer of that
 *   range is returned twice or skipped, and transfers mined later never shift pages.
 * - **Bounds.** Each `eth_getLogs` covers at most `maxBlockSpan` blocks; one request walks at most
 *   `historyScanBlocks` blocks and stops early when the time spent reaches `rpcTimeoutMs`, the page holds
 *   `limit` items, or one more item would pass `maxResponseBytes`. A page may be empty and still carry a
 *   cursor: the walk has not reached `from_block` yet.
 * - **Cursors** are MAC'd (see `encodeHistoryCursor`) and carry the filters; filters sent with a cursor
 *   must equal its own.
 * - **Merchant viewers** must own `pay_to` or `from` (checked on every page).
 *
 * @param deps - Networks, cursor key, bounds and clock.
 * @returns The service.
 * @example
 * ```ts
 * import { anyoneViewer, createTransferHistory, historyCursorKey } from '@tollgate/core/gateway';
 * const history = createTransferHistory({ networks, cursorKey: historyCursorKey(keys.cursor), settings, clock });
 * const page = await history.page({ payTo, limit: 50, viewer: anyoneViewer });
 * ```
 */
export function createTransferHistory(deps: {
  networks: EvidenceNetworks;
  cursorKey: Uint8Array;
  settings: Pick<EvidenceSettings, 'rpcTimeoutMs' | 'maxBlockSpan' | 'historyScanBlocks' | 'maxResponseBytes'>;
  clock: Clock;
}): TransferHistory {
  const { settings } = deps;

  function stateOf(request: TransferHistoryRequest, kept: HistoryCursorState | undefined, head: () => Promise<bigint>, network: string): Promise<HistoryCursorState | null> | HistoryCursorState {
    if (kept !== undefined) {
      const state = kept;
      const same = (given: string | undefined, kept: string | null) => given === undefined || (kept !== null && given.toLowerCase() === kept.toLowerCase());
      if (!same(request.payTo, state.payTo) || !same(request.from, state.from) || !same(request.network, state.network) || (request.fromBlock !== undefined && request.fromBlock !== state.fromBlock)) {
        throw invalidHistoryCursor();
      }
      return request.limit === undefined ? state : { ...state, limit: request.limit };
    }
    return head().then((latest) => {
      const fromBlock = request.fromBlock ?? 0;
      if (BigInt(fromBlock) > latest) return null;
      const toBlock = Number(latest);
      const filter = (address: Address | undefined) => (address === undefined ? null : getAddress(address));
      const limit = request.limit ?? txHistoryLimits.default;
      return { network, payTo: filter(request.payTo), from: filter(request.from), fromBlock, toBlock, block: toBlock, beforeLogIndex: null, limit };
    });
  }

  return {
    async page(request) {
      const kept = request.cursor === undefined ? undefined : decodeHistoryCursor(deps.cursorKey, request.cursor);
      const { network, client } = deps.networks.resolve(kept === undefined ? request.network : kept.network);
      const reads = createChainReads(client, settings.rpcTimeoutMs);
      const state = await stateOf(request, kept, () => reads.head(), network.name);
      if (state !== null && !viewerOwns(request.viewer, state.payTo) && !viewerOwns(request.viewer, state.from)) throw notVisible('transfer history');
      if (state === null) return { network: network.name, asset: 'USDC', items: [], scanned: null };

      const topics = [transferTopic, state.from === null ? null : pad(state.from as Address), state.payTo === null ? null : pad(state.payTo as Address)];
      const items: LocatedTransfer[] = [];
      const started = deps.clock.now();
      let bytes = envelopeBytes;
      let budget = settings.historyScanBlocks;
      let next: Position | null = { block: state.block, beforeLogIndex: state.beforeLogIndex };
      while (next !== null && budget > 0) {
        const high: number = next.block;
        const low = Math.max(state.fromBlock, high - Math.min(settings.maxBlockSpan, budget) + 1);
        budget -= high - low + 1;
        const found = await reads.logs({ address: network.usdc.address, topics, fromBlock: BigInt(low), toBlock: BigInt(high) });
        const window = located(found, network.usdc.address, low, high, next);
        let cut: Position | undefined;
        for (const item of window) {
          const size = JSON.stringify(item).length + 1;
          // The first item always fits: the smallest byte bound holds the envelope and several items.
          if (items.length > 0 && (items.length === state.limit || bytes + size > settings.maxResponseBytes)) {
            const last = items[items.length - 1] as LocatedTransfer;
            cut = { block: Number(last.blockNumber), beforeLogIndex: last.logIndex };
            break;
          }
          items.push(item);
          bytes += size;
        }
        next = cut ?? (low - 1 < state.fromBlock ? null : { block: low - 1, beforeLogIndex: null });
        if (cut !== undefined || items.length === state.limit || deps.clock.now() - started >= settings.rpcTimeoutMs) break;
      }
      const scannedFrom = next === null ? state.fromBlock : next.beforeLogIndex === null ? next.block + 1 : next.block;
      return {
        network: network.name,
        asset: 'USDC',
        items,
        scanned: { fromBlock: String(scannedFrom), toBlock: String(state.block) },
        ...(next === null ? {} : { nextCursor: encodeHistoryCursor(deps.cursorKey, { ...state, block: next.block, beforeLogIndex: next.beforeLogIndex }) }),
      };
    },
  };
}

/** The window's transfers inside `[low, high]` and before `next`, newest first, each position once. */
function located(logs: readonly Parameters<typeof decodeTokenTransfer>[0][], token: Address, low: number, high: number, next: Position): LocatedTransfer[] {
  const seen = new Set<string>();
  const items: LocatedTransfer[] = [];
  for (const log of logs) {
    const position = logPosition(log);
    const transfer = decodeTokenTransfer(log, token);
    if (position === undefined || transfer === undefined || log.transactionHash === null || log.blockHash === null) continue;
    const block = Number(position.blockNumber);
    if (block < low || block > high || (block === next.block && next.beforeLogIndex !== null && position.logIndex >= next.beforeLogIndex)) continue;
    const key = `${block}:${position.logIndex}`;
    if (seen.has(key)) continue;
    seen.add(key);
    items.push({ txHash: log.transactionHash.toLowerCase() as Hash, blockNumber: String(block), blockHash: log.blockHash, ...transfer });
  }
  return items.sort((a, b) => Number(b.blockNumber) - Number(a.blockNumber) || b.logIndex - a.logIndex);
}
