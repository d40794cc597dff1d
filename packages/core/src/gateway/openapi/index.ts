/**
 * The gateway's OpenAPI 3.1 document, generated from the valibot schemas its routes parse and answer
 * with: one descriptor group per route module and the builder; the descriptor vocabulary, the converter
 * and the document type come from the shared OpenAPI room (`src/openapi`) and are re-exported here.
 *
 * @module
 */
export {
  named,
  operationServes,
  type NamedSchema,
  type OperationSecurity,
  type HeaderDescriptor,
  type ResponseDescriptor,
  type PathParamDescriptor,
  type OperationDescriptor,
  type OperationGroup,
} from '../../openapi/descriptors';
export { toComponentSchemas, toInlineSchema, componentSchemaPath, type AnySchema, type SchemaDirection } from '../../openapi/json-schema';
export { buildOpenApiDocument, gatewayOpenApiVersion } from './document';
export { serializeOpenApiDocument, type OpenApiDocument } from '../../openapi/document';
export {
  gatewayOperationGroups,
  servedOperationGroups,
  gatewayOpenApiDocument,
  type GatewayOperationOptions,
} from './gateway-operations';
export { describes, gatewayErrorEnvelopeSchema, gatewayErrorSchema, allGatewayErrorCodes, type Documented } from './schemas/common';
export {
  challengeResponse,
  merchantCredentialsResponse,
  attachedPayToResponse,
  registrationResultResponse,
  merchantProfileResponse,
  rotatedCredentialResponse,
  revokedCredentialResponse,
  retiredPayToResponse,
} from './schemas/merchant-responses';
export { refSnapshotSchema, createdRefResponse, publicRefResponse, refPageResponse, revokedRefResponse } from './schemas/ref-responses';
export {
  paymentRequiredHeaderSchema,
  paymentPayloadHeaderSchema,
  paymentReceiptComponent,
  refundReceiptComponent,
  settlementSuccessResponse,
  refundSettlementSuccessResponse,
  settlementFailureResponse,
  paymentRequiredErrorResponse,
  receiveQuerySchema,
} from './schemas/payment-responses';
export { receiptVerificationResponse, refundReceiptVerificationResponse, txStatusResponse, transferHistoryResponse } from './schemas/evidence-responses';
export {
  orderIdOut,
  refundIdOut,
  orderResponse,
  orderPageResponse,
  refundIntentResponse,
  refundIntentListResponse,
  statelessRejectionResponse,
  rejectedRefundReceiptComponent,
} from './schemas/order-responses';
export { merchantOperations } from './operations/merchant-operations';
export { refOperations, refIdParam } from './operations/ref-operations';
export { receiveOperations, settlementResponses, failedSettlementHeader } from './operations/receive-operations';
export { recoveryOperations } from './operations/recovery-operations';
export { evidenceOperations } from './operations/evidence-operations';
export { orderOperations, orderIdParam, orderModeCondition } from './operations/order-operations';
export { refundOperations, refundIdParam } from './operations/refund-operations';
export { payPageOperations } from './operations/pay-page-operations';
export { openApiOperations, openApiDocumentResponse, openApiMaxAgeSeconds } from './operations/openapi-operations';
export { healthOperations, healthStatusResponse } from './operations/health-operations';
