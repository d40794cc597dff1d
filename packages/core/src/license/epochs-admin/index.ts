// Public exports of the epochs-admin area: the Admin operations of signing epochs (list, upload,
// detail, two-actor revocation) and the carry-over certificates of root rotation.
export { addCarryOverCertificate, listEpochCertificates, type CarryOverOutcome, type EpochCertificateEntry } from './carry-over-certificates';
export { announceEpochChangeAfterCommit, epochPathId, requireAdministeredEpoch } from './epoch-admin-calls';
export {
  administersGlobalEpochs,
  countMachinesUpperBound,
  listAdministeredEpochs,
  readAdministeredEpoch,
  replacementCandidates,
  type AdministeredEpoch,
  type EpochAdministration,
} from './epoch-admin-store';
export { epochOperations } from './epoch-operations';
export {
  completeEpochApproval,
  decideEpochRevocationConfirmation,
  openEpochApproval,
  readLatestEpochApproval,
  readPendingEpochApproval,
  type ConfirmationDecision,
  type ConfirmingActor,
  type PendingEpochApproval,
} from './epoch-revocation-approvals';
export { epochRevocationActors, epochRevokeOperation } from './epoch-revoke-operation';
export { epochView, verifiesUnderPins, type EpochAdminDeps } from './epoch-views';
