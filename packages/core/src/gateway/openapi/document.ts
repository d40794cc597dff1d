import type { NamedSchema, OperationGroup } from '../../openapi/descriptors';
import type { OpenApiDocument } from '../../openapi/document';
import { openApiPath, type JsonObject } from '../../openapi/operation-object';
import { SchemaRegistry } from '../../openapi/schema-registry';
import { operationErrorCodes, operationObject, securitySchemeNames } from './operation-object';
import { gatewayErrorOf, gatewayErrorSchema } from './schemas/common';
import { paymentPayloadHeaderSchema } from './schemas/payment-responses';

/**
 * The version of the document (OpenAPI `info.version`), distinct from the package version: it changes
 * when the contract does, so publishing a package does not make the checked-in document stale.
 */
export const gatewayOpenApiVersion = '1.0.0';

const description = [
  'The Tollgate x402 v2 payment gateway: merchant registration, payment refs, x402 negotiation and settlement, receipts, chain evidence and settlement recovery.',
  'Every error is the envelope { x402Version: 2, error: { code, message, details } }; each operation lists its codes with their HTTP statuses. Clients must ignore unknown response fields: new ones may be added.',
  'Request and response schemas are generated from the valibot schemas the gateway parses and answers with.',
].join('\n\n');

/** The fixed description, then which groups of this document only some configurations serve. */
function documentDescription(groups: readonly OperationGroup[]): string {
  const conditions = new Map<string, string[]>();
  for (const group of groups) if (group.servedOnlyIn !== undefined) conditions.set(group.servedOnlyIn, [...(conditions.get(group.servedOnlyIn) ?? []), group.name]);
  if (conditions.size === 0) return description;
  const parts = [...conditions].map(([condition, names]) => `the ${names.join(' and ')} ${names.length === 1 ? 'tag' : 'tags'}, in ${condition}`);
  return `${description}\n\nThis document includes operations a gateway serves only when configured so: ${parts.join('; ')}. A gateway's own GET /openapi.json lists only the operations it serves.`;
}

/** Registers every named schema of `groups` so that nested uses become references. */
function registerSchemas(groups: readonly OperationGroup[], registry: SchemaRegistry): void {
  registry.add(gatewayErrorSchema, 'output');
  for (const group of groups) {
    for (const shared of group.sharedSchemas ?? []) registry.add(shared, 'output');
    for (const operation of group.operations) {
      if (operation.body !== undefined) registry.add(operation.body.schema, 'input');
      if (operation.security === 'payment') registry.add(paymentPayloadHeaderSchema, 'input');
      for (const code of operationErrorCodes(operation)) registry.add(gatewayErrorOf(code), 'output');
      for (const response of Object.values(operation.responses)) {
        for (const body of response.body === undefined ? [] : Array.isArray(response.body) ? response.body : [response.body]) registry.add(body as NamedSchema, 'output');
        for (const header of Object.values(response.headers ?? {})) for (const named of header.base64Json ?? []) registry.add(named, 'output');
      }
    }
  }
}

function securitySchemes(groups: readonly OperationGroup[]): Record<string, JsonObject> {
  const used = new Set(groups.flatMap((group) => group.operations.map((operation) => operation.security)));
  const schemes: Record<string, JsonObject> = {};
  if (used.has('bearer') || used.has('optional-bearer')) {
    schemes[securitySchemeNames.bearer] = {
      type: 'http',
      scheme: 'bearer',
      description: 'The merchant API key returned once by POST /merchant/register (Authorization: Bearer <API key>).',
    };
  }
  if (used.has('payment')) {
    schemes[securitySchemeNames.payment] = {
      type: 'apiKey',
      in: 'header',
      name: 'PAYMENT-SIGNATURE',
      description:
        'The x402 v2 payment: standard base64 (base64url is accepted) of a PaymentPayload JSON (#/components/schemas/PaymentPayload) signed by the payer. Without it /receive answers 402 with PAYMENT-REQUIRED. Replayable sensitive material: never log it.',
    };
  }
  return schemes;
}

/**
 * Builds the OpenAPI 3.1 document of `groups`: one path per route, request and response schemas
 * converted from the descriptors' valibot schemas, the error codes of each operation with their
 * statuses, and the security schemes the operations use. Pure and deterministic: the same groups give the
 * same document, byte for byte once serialised.
 *
 * @param groups - The operation groups, in document order.
 * @returns The document.
 * @throws TypeError when two operations share a method and path or an operationId, or a descriptor
 *   contradicts itself; Error when a schema cannot be converted.
 * @example
 * ```ts
 * import { buildOpenApiDocument, gatewayOperationGroups } from '@tollgate/core/gateway';
 * const document = buildOpenApiDocument(gatewayOperationGroups({ evidenceAccess: 'public' }));
 * ```
 */
export function buildOpenApiDocument(groups: readonly OperationGroup[]): OpenApiDocument {
  const registry = new SchemaRegistry();
  registerSchemas(groups, registry);
  const paths: Record<string, Record<string, JsonObject>> = {};
  const operationIds = new Set<string>();
  for (const group of groups) {
    for (const operation of group.operations) {
      const path = openApiPath(operation.path);
      const method = operation.method.toLowerCase();
      const item = (paths[path] ??= {});
      if (item[method] !== undefined) throw new TypeError(`openapi: ${operation.method} ${operation.path} is described twice`);
      if (operationIds.has(operation.operationId)) throw new TypeError(`openapi: operationId ${operation.operationId} is used twice`);
      operationIds.add(operation.operationId);
      item[method] = operationObject(operation, group.name, registry);
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Tollgate payment gateway', version: gatewayOpenApiVersion, description: documentDescription(groups), license: { name: 'MIT', identifier: 'MIT' } },
    tags: groups.map((group) => ({ name: group.name, description: group.servedOnlyIn === undefined ? group.description : `${group.description} Served only in ${group.servedOnlyIn}.` })),
    paths,
    components: { schemas: registry.components(), securitySchemes: securitySchemes(groups) },
  };
}
