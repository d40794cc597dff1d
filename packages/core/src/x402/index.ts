export {
  type Network,
  type ResourceInfo,
  type PaymentRequirements,
  type PaymentRequired,
  type PaymentPayload,
  type ExtensionEntry,
  type ExactEvmAuthorization,
  type ExactEvmPayload,
  type VerifyResponse,
  type SettleResponse,
  type SupportedKind,
  type SupportedResponse,
  networkSchema,
  uintStringSchema,
  addressSchema,
  resourceInfoSchema,
  paymentRequirementsSchema,
  paymentRequiredSchema,
  paymentPayloadSchema,
  exactEvmPayloadSchema,
  verifyResponseSchema,
  settleResponseSchema,
  supportedResponseSchema,
  extensionEntrySchema,
} from './wire';
export { X402HeaderError, PaymentVerificationError, type X402HeaderFailure } from './errors';
export {
  x402HeaderNames,
  X402_HEADER_MAX_BYTES,
  X402_HEADER_MAX_DEPTH,
  encodeX402Header,
  decodePaymentSignatureHeader,
  decodePaymentRequiredHeader,
  decodePaymentResponseHeader,
  type DecodeX402HeaderOptions,
} from './headers';
export {
  buildPaymentRequirements,
  buildPaymentRequired,
  findRequirementsMismatch,
  requirementsMatch,
  type BuildPaymentRequirementsParams,
  type BuildPaymentRequiredParams,
} from './requirements';
export { type EvmSigner, evmSignerWithBackend, recoverDigestSigner, type SignatureRecovery, type SignatureRecoveryFailure } from './evm-signature';
export { nobleSecp256k1, type Secp256k1Backend } from './secp256k1-backend';
export { tokenEip712Domain, transferWithAuthorizationDigest, transferWithAuthorizationTypes } from './eip3009';
export {
  verifyExactPayment,
  type VerifyExactPaymentParams,
  type VerifiedExactPayment,
  type ExactSignatureStatus,
} from './exact-payment';
export {
  PAYMENT_IDENTIFIER,
  PAYMENT_ID_PATTERN,
  paymentIdentifierSchema,
  declarePaymentIdentifier,
  isValidPaymentId,
  generatePaymentId,
  extractPaymentIdentifier,
  type PaymentIdentifierInfo,
} from './payment-identifier';
export { TOLLGATE_OFFER, tollgateOfferSchema, alignedOfferExpiry, tollgateOfferExtension, extractEchoedOffer } from './tollgate-offer-extension';
export {
  tollgateOfferDomain,
  tollgateOfferTypes,
  hashTollgateOffer,
  tollgateOfferTypedData,
  createSignedOffer,
  verifySignedOffer,
  type TollgateOfferPayload,
  type SignedTollgateOffer,
  type CreateSignedOfferParams,
  type VerifySignedOfferOptions,
} from './tollgate-offer';
export {
  OFFER_RECEIPT,
  x402OfferInfoSchema,
  x402ReceiptInfoSchema,
  signX402Offer,
  signX402Receipt,
  x402OffersExtension,
  recoverX402OfferSigner,
  recoverX402ReceiptSigner,
  type X402OfferPayload,
  type X402SignedOffer,
  type X402ReceiptPayload,
  type X402SignedReceipt,
} from './x402-offer-receipt';
export {
  PAYMENT_RECEIPT_TYPE,
  paymentReceiptSchema,
  buildPaymentReceipt,
  receiptHash,
  tollgateReceiptDomain,
  tollgateReceiptTypes,
  signReceipt,
  verifySignedReceipt,
  type PaymentReceipt,
  type BuildPaymentReceiptParams,
  type SignedReceiptVerification,
} from './receipt';
export {
  buildSettlementResponse,
  buildSettlementFailureResponse,
  type SettlementSuccessBody,
  type SettlementFailureBody,
  type SettlementReceiptExtension,
  type BuildSettlementResponseParams,
  type BuildSettlementFailureParams,
} from './settlement-response';
export * from './facilitator';
export * from './notifications';
// Order mode's refund receipts (paid and rejected): build, sign, verify, hash.
export * from './refund-receipt';
export * from './refund-receipt-verify';
