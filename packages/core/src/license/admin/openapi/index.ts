/**
 * The Admin API's OpenAPI 3.1 document, generated from its operations and the valibot schemas of their
 * `docs` with the shared converter (`src/openapi`).
 *
 * @module
 */
export { buildAdminOpenApiDocument, adminOpenApiText, adminOpenApiVersion, adminOpenApiPath } from './admin-openapi-document';
export { adminOperationCatalog } from './admin-operation-catalog';
export { adminOperationId, adminOperationErrorCodes, adminDocumentPath } from './admin-operation-object';
// The shared document type; its serialiser stays behind @tollgate/core/gateway (adminOpenApiText wraps it).
export type { OpenApiDocument as AdminOpenApiDocument } from '../../../openapi/document';
