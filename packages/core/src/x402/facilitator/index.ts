export { type Facilitator, type SettlementOutcome, settlementOutcome } from './port';
export { payloadOnlyFailureReasons, facilitatorRefusalKind } from './failure-reasons';
export { createHttpFacilitator, type HttpFacilitatorOptions } from './http-facilitator';
export {
  FacilitatorUnavailableError,
  FacilitatorProtocolError,
  type FacilitatorOperation,
  type FacilitatorUnavailableReason,
  type FacilitatorProtocolFailure,
} from './errors';
