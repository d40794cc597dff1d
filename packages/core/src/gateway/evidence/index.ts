export {
  defaultEvidenceSettings,
  resolveEvidenceSettings,
  minEvidenceResponseBytes,
  type EvidenceSettings,
  type EvidenceOptions,
  type EvidenceAccessMode,
  type EvidenceChainClient,
} from './evidence-settings';
export { createChainReads, logPosition, type ChainReads, type RawLog, type RawReceipt, type LogFilter } from './chain-reads';
export { createEvidenceNetworks, type EvidenceNetworks, type QueryableNetwork } from './evidence-networks';
export { anyoneViewer, viewerOwns, notVisible, type EvidenceViewer } from './evidence-viewer';
export {
  transferTopic,
  authorizationUsedTopic,
  decodeTokenTransfer,
  tokenTransfers,
  executedAuthorizations,
  type TokenTransfer,
  type LocatedTransfer,
  type ExecutedAuthorization,
} from './transfer-logs';
export { createTxObserver, type TxObserver, type TxObservation } from './tx-observation';
export { createTxStatusService, type TxStatusService, type TxStatusView, type TxLogView } from './tx-status';
export { historyCursorKey, encodeHistoryCursor, decodeHistoryCursor, invalidHistoryCursor, type HistoryCursorState } from './history-cursor';
export { createTransferHistory, type TransferHistory, type TransferHistoryRequest, type TransferHistoryPage } from './transfer-history';
export { readIssuedReceipt, receiptClaims, type IssuedReceipt, type ReceiptClaims } from './receipt-forms';
export {
  receiptContext,
  refOfResource,
  compareField,
  compareWithStored,
  networkFields,
  storedReceiptOf,
  type ContextReport,
  type FieldEvidence,
  type EvidenceSource,
  type ReceiptExpectations,
  type ReceiptRef,
} from './receipt-context';
export { judgeReceiptTransaction, type ChainReport, type ExpectedTransfer } from './receipt-chain-check';
export {
  createReceiptVerifier,
  createSignerJudge,
  observeTransfer,
  receiptRefused,
  type ReceiptVerifier,
  type ReceiptVerifierDeps,
  type ReceiptVerification,
  type SignatureReport,
  type VerifyReceiptRequest,
} from './receipt-verification';
export {
  createRefundReceiptVerifier,
  type RefundReceiptVerifier,
  type RefundReceiptVerifierDeps,
  type RefundReceiptVerification,
  type RefundContextReport,
  type RefundFieldEvidence,
  type VerifyRefundReceiptRequest,
} from './refund-receipt-verification';
export { createEvidenceServices, type EvidenceServices, type EvidenceServiceDeps } from './evidence-services';
export {
  verifyReceiptRequestSchema,
  verifyRefundReceiptRequestSchema,
  txHashSchema,
  txStatusQuerySchema,
  txHistoryQuerySchema,
  maxMinConfirmations,
  txHistoryLimits,
  type VerifyReceiptBody,
  type VerifyRefundReceiptBody,
  type TxHistoryQuery,
} from './schemas';
