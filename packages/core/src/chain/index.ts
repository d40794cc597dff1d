export { eip3009Abi, transferEvent, authorizationUsedEvent, authorizationCanceledEvent } from './abi';
export { ChainReadError, chainRead, type ChainReadFailure } from './errors';
export { blockRanges, type BlockRange } from './block-ranges';
export { attributeTransfer, type AttributedTransfer } from './transfer-attribution';
export {
  findAuthorizationSettlement,
  type FindAuthorizationSettlementParams,
  type AuthorizationSettlementEvidence,
  type SettlementMismatchReason,
  type ChainEvidenceClient,
} from './settlement-evidence';
export { firstBlockAfter, lastBlockBefore, type BlockTimeClient, type BlockStamp } from './block-by-time';
