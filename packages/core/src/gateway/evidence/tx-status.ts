import type { Hash, Hex } from 'viem';
import type { RawLog } from './chain-reads';
import type { EvidenceNetworks } from './evidence-networks';
import type { EvidenceSettings } from './evidence-settings';
import { viewerOwns, type EvidenceViewer } from './evidence-viewer';
import { executedAuthorizations, tokenTransfers, type TokenTransfer } from './transfer-logs';
import type { TxObservation, TxObserver } from './tx-observation';

/** One log of a `/tx` answer. */
export interface TxLogView {
  readonly logIndex: number;
  readonly address: string;
  readonly topics: readonly Hex[];
  readonly data: Hex;
}

/** The answer of `GET /tx/:txHash`. Block numbers are decimal strings. */
export interface TxStatusView {
  readonly txHash: Hash;
  /** The network name that was read. */
  readonly network: string;
  /** Whether the node knows the transaction (`pending`, `success` or `reverted`). */
  readonly found: boolean;
  readonly status: TxObservation['status'];
  /** head − block + 1 once mined in a canonical block, else 0. */
  readonly confirmations: number;
  readonly blockNumber: string | null;
  readonly blockHash: Hash | null;
  /**
   * The transaction's USDC transfer: the one an EIP-3009 authorization executed when there is one, else
   * the first; for a merchant, the first one touching its payTo. `null` when it moved no USDC.
   */
  readonly transfer: TokenTransfer | null;
  /** How many USDC transfers the transaction holds (for a merchant: that touch its payTos). */
  readonly transferCount: number;
  /**
   * The logs in order, at most `maxTxLogs` and within the response byte bound. A merchant sees only its
   * own USDC transfers' logs: a batch settling several merchants' payments must not show it the others'.
   */
  readonly logs: readonly TxLogView[];
  /** How many logs the transaction has (for a merchant: how many it may see). */
  readonly logCount: number;
  readonly logsTruncated: boolean;
}

/** `GET /tx/:txHash` as a service. */
export interface TxStatusService {
  /**
   * The status of `txHash` on the named network (or the default one).
   *
   * @throws GatewayError `invalid_request` for an unknown or unqueryable network; ChainReadError `rpc_unavailable`.
   */
  status(params: { txHash: Hash; network?: string | undefined; viewer: EvidenceViewer }): Promise<TxStatusView>;
}

// The answer's fields besides the logs; the logs get the rest of the byte budget.
const envelopeBytes = 2_048;

/**
 * Creates the transaction-status service. A merchant viewer (merchant-key policy) sees a transaction
 * only when one of its USDC transfers is from or to one of its payTos, and then only those transfers
 * and their logs; any other transaction, and a pending one (its transfers are not known before it is
 * mined), answers exactly as an unknown hash does.
 *
 * @param deps - Network resolution, the observer and the bounds.
 * @returns The service.
 * @example
 * ```ts
 * import { anyoneViewer, createTxStatusService } from '@tollgate/core/gateway';
 * const txs = createTxStatusService({ networks, observer, settings });
 * const view = await txs.status({ txHash, viewer: anyoneViewer }); // { found: true, status: 'success', … }
 * ```
 */
export function createTxStatusService(deps: { networks: EvidenceNetworks; observer: TxObserver; settings: Pick<EvidenceSettings, 'maxTxLogs' | 'maxResponseBytes'> }): TxStatusService {
  const { settings } = deps;
  return {
    async status({ txHash, network: name, viewer }) {
      const { network, client } = deps.networks.resolve(name);
      const hash = txHash.toLowerCase() as Hash;
      const observation = await deps.observer.observe(network, client, hash);
      const unknown: TxStatusView = {
        txHash: hash,
        network: network.name,
        found: false,
        status: 'not_found',
        confirmations: 0,
        blockNumber: null,
        blockHash: null,
        transfer: null,
        transferCount: 0,
        logs: [],
        logCount: 0,
        logsTruncated: false,
      };
      if (observation.status === 'not_found') return unknown;
      if (observation.status === 'pending') return viewer.kind === 'anyone' ? { ...unknown, found: true, status: 'pending' } : unknown;

      const transfers = tokenTransfers(observation.logs, network.usdc.address);
      const visible = viewer.kind === 'anyone' ? transfers : transfers.filter((transfer) => viewerOwns(viewer, transfer.from) || viewerOwns(viewer, transfer.to));
      if (viewer.kind === 'merchant' && visible.length === 0) return unknown;
      const executed = viewer.kind === 'anyone' ? executedAuthorizations(observation.logs, network.usdc.address).find((entry) => entry.transfer !== undefined) : undefined;
      const own = new Set(visible.map((transfer) => transfer.logIndex));
      const shown = viewer.kind === 'anyone' ? observation.logs : observation.logs.filter((log) => isOwnTransferLog(log, network.usdc.address, own));
      const { logs, truncated } = boundedLogs(shown, settings.maxTxLogs, settings.maxResponseBytes - envelopeBytes);
      return {
        ...unknown,
        found: true,
        status: observation.status,
        confirmations: observation.confirmations,
        blockNumber: observation.blockNumber.toString(),
        blockHash: observation.blockHash,
        transfer: executed?.transfer ?? visible[0] ?? null,
        transferCount: visible.length,
        logs,
        logCount: shown.length,
        logsTruncated: truncated,
      };
    },
  };
}

/** The first logs that fit in `maxLogs` entries and `maxBytes` of JSON. */
/** A USDC log whose index is one of the viewer's own transfers. */
function isOwnTransferLog(log: RawLog, token: string, own: ReadonlySet<number>): boolean {
  return log.logIndex !== null && log.address.toLowerCase() === token.toLowerCase() && own.has(Number(BigInt(log.logIndex)));
}

function boundedLogs(raw: readonly RawLog[], maxLogs: number, maxBytes: number): { logs: TxLogView[]; truncated: boolean } {
  const logs: TxLogView[] = [];
  let bytes = 0;
  for (const log of raw) {
    if (logs.length === maxLogs) return { logs, truncated: true };
    const view: TxLogView = { logIndex: log.logIndex === null ? logs.length : Number(BigInt(log.logIndex)), address: log.address, topics: log.topics, data: log.data };
    bytes += JSON.stringify(view).length + 1;
    if (bytes > maxBytes) return { logs, truncated: true };
    logs.push(view);
  }
  return { logs, truncated: false };
}
