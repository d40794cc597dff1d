import type { Address } from 'viem';
import { resolvePublicUrl, type GatewayServiceDeps } from '../service-deps';
import type { GatewayStores } from '../store/gateway-stores';
import type { OrderStore } from '../store/order-store';
import { createEvidenceNetworks, type EvidenceNetworks } from './evidence-networks';
import { resolveEvidenceSettings, type EvidenceOptions, type EvidenceSettings } from './evidence-settings';
import { historyCursorKey } from './history-cursor';
import { createReceiptVerifier, type ReceiptVerifier } from './receipt-verification';
import { createRefundReceiptVerifier, type RefundReceiptVerifier } from './refund-receipt-verification';
import { createTransferHistory, type TransferHistory } from './transfer-history';
import { createTxObserver, type TxObserver } from './tx-observation';
import { createTxStatusService, type TxStatusService } from './tx-status';

/** The chain-evidence services behind `/verify-receipt`, `/verify-refund-receipt`, `/tx/:txHash` and `/txs`. */
export interface EvidenceServices {
  readonly receipts: ReceiptVerifier;
  /** `/verify-refund-receipt`: refund and rejected-refund receipts, with the same keys and chain reads. */
  readonly refundReceipts: RefundReceiptVerifier;
  readonly txs: TxStatusService;
  readonly history: TransferHistory;
  /** Which chain a request reads (also for routes built on these services, such as settlement recovery). */
  readonly networks: EvidenceNetworks;
  /** The transaction observer (canonical-chain reads, final transactions cached). */
  readonly observer: TxObserver;
  readonly settings: EvidenceSettings;
}

/** Dependencies of {@link createEvidenceServices}. */
export type EvidenceServiceDeps = GatewayServiceDeps & {
  /** `orders` (order mode): the refund intent a refund receipt is checked against when no original receipt is sent. */
  readonly stores: Pick<GatewayStores, 'payments' | 'refs'> & { readonly orders?: OrderStore };
  readonly evidence: EvidenceOptions;
  /** The payment signer's address: the current receipt key unless `evidence.receiptSigner` says otherwise. */
  readonly paymentSigner?: Address | undefined;
};

/**
 * Builds the evidence services over one observer (so `/tx` and `/verify-receipt` share the cache of final
 * transactions) and the history cursor key derived from `keys.cursor`.
 *
 * @param deps - Gateway dependencies, stores, evidence options and the payment signer.
 * @returns The services.
 * @throws RangeError for invalid settings.
 * @example
 * ```ts
 * import { anyoneViewer, createEvidenceServices } from '@tollgate/core/gateway';
 * const evidence = createEvidenceServices({ keys, networks, publicUrl, clock, stores, evidence: { chain: (network) => rpc.forNetwork(network.name) } });
 * const tx = await evidence.txs.status({ txHash, viewer: anyoneViewer });
 * ```
 */
export function createEvidenceServices(deps: EvidenceServiceDeps): EvidenceServices {
  const settings = resolveEvidenceSettings(deps.evidence.settings);
  const networks = createEvidenceNetworks(deps.networks, deps.evidence.chain);
  const observer = createTxObserver(settings);
  const verifierDeps = {
    registry: deps.networks,
    networks,
    observer,
    stores: deps.stores,
    currentSigner: deps.evidence.receiptSigner ?? deps.paymentSigner,
    previousSigners: deps.evidence.previousReceiptSigners ?? [],
    cacheSize: settings.cacheSize,
  };
  return {
    receipts: createReceiptVerifier({ ...verifierDeps, publicUrl: () => resolvePublicUrl(deps) }),
    refundReceipts: createRefundReceiptVerifier(verifierDeps),
    txs: createTxStatusService({ networks, observer, settings }),
    history: createTransferHistory({ networks, cursorKey: historyCursorKey(deps.keys.cursor), settings, clock: deps.clock }),
    networks,
    observer,
    settings,
  };
}
