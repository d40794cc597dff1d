import * as v from 'valibot';
import { createRefRequestSchema, listRefsQuerySchema } from '../../refs/schemas';
import { refBodyLimit } from '../../routes/ref-routes';
import { named, type OperationGroup, type PathParamDescriptor } from '../../../openapi/descriptors';
import { createdRefResponse, publicRefResponse, refPageResponse, refSnapshotSchema, revokedRefResponse } from '../schemas/ref-responses';

/** A ref id in a path: 32 lowercase hex digits (anything else is `not_found`, like an unknown id). */
export const refIdParam: PathParamDescriptor = {
  description: 'The ref id (32 lowercase hex digits).',
  schema: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/)),
};

const noStore = { 'Cache-Control': { description: 'no-store.', required: true, schema: v.literal('no-store') } };

/**
 * The operations of `refRoutes` (`routes/ref-routes.ts`): create, list, read and revoke payment refs.
 *
 * @example
 * ```ts
 * import { buildOpenApiDocument, refOperations } from '@tollgate/core/gateway';
 * const document = buildOpenApiDocument([refOperations]);
 * ```
 */
export const refOperations: OperationGroup = {
  name: 'ref',
  description: 'Payment references: a fixed or open amount to one payTo, with an immutable payment snapshot.',
  sharedSchemas: [refSnapshotSchema],
  operations: [
    {
      method: 'POST',
      path: '/ref',
      operationId: 'createRef',
      summary: 'Create a payment ref',
      description: 'Without amount the ref is open: the payer chooses the amount at /receive (amount query parameter).',
      security: 'bearer',
      body: { schema: named('CreateRefRequest', createRefRequestSchema), maxBytes: refBodyLimit },
      responses: {
        201: {
          description: 'The new ref and its immutable snapshot.',
          body: createdRefResponse,
          headers: { ...noStore, Location: { description: 'The path of the ref: /ref/<refId>.', required: true, schema: v.pipe(v.string(), v.regex(/^\/ref\/[0-9a-f]{32}$/)) } },
        },
      },
      errors: ['not_found', 'payto_revoked', 'conflict'],
    },
    {
      method: 'GET',
      path: '/ref',
      operationId: 'listRefs',
      summary: "List the refs of one of the merchant's payTo addresses, newest first",
      security: 'bearer',
      query: listRefsQuerySchema,
      responses: { 200: { description: 'One page of refs.', body: refPageResponse, headers: noStore } },
      errors: ['not_found'],
    },
    {
      method: 'GET',
      path: '/ref/:refId',
      operationId: 'getRef',
      summary: 'The public snapshot and status of a ref',
      security: 'public',
      rateLimited: true,
      pathParams: { refId: refIdParam },
      responses: {
        200: {
          description: 'The ref.',
          body: publicRefResponse,
          headers: { 'Cache-Control': { description: 'no-cache: the status can change (revocation), so revalidate.', required: true, schema: v.literal('no-cache') } },
        },
      },
      errors: ['not_found'],
    },
    {
      method: 'POST',
      path: '/ref/:refId/revoke',
      operationId: 'revokeRef',
      summary: 'Revoke a ref',
      description:
        "Idempotent. Future payments through the ref are refused with ref_revoked; a mined transfer is never reversed. An order's or a refund intent's ref (order mode) is revoked through its own route: 409 conflict with details.reason use_order_routes (details.kind).",
      security: 'bearer',
      pathParams: { refId: refIdParam },
      responses: { 200: { description: 'The revoked ref.', body: revokedRefResponse, headers: noStore } },
      errors: ['not_found', 'conflict'],
    },
  ],
};
