import type { Route } from '../../http/types';
import type { EvidenceAccessMode } from '../evidence/evidence-settings';
import { operationServes, type OperationGroup } from '../../openapi/descriptors';
import type { OpenApiDocument } from '../../openapi/document';
import { buildOpenApiDocument } from './document';
import { evidenceOperations } from './operations/evidence-operations';
import { healthOperations } from './operations/health-operations';
import { merchantOperations } from './operations/merchant-operations';
import { openApiOperations } from './operations/openapi-operations';
import { orderOperations } from './operations/order-operations';
import { payPageOperations } from './operations/pay-page-operations';
import { receiveOperations } from './operations/receive-operations';
import { recoveryOperations } from './operations/recovery-operations';
import { refOperations } from './operations/ref-operations';
import { refundOperations } from './operations/refund-operations';

/** What the gateway's descriptors depend on in the configuration. */
export interface GatewayOperationOptions {
  /** The evidence access policy: whether `/verify-receipt`, `/tx`, `/txs` and `/recover-settlement` take a merchant key. */
  readonly evidenceAccess: EvidenceAccessMode;
}

/**
 * The descriptors of every route `createGateway` can mount (order mode's included), one group per
 * route module, in document order. A new route module adds its descriptor module and one line here.
 *
 * @param options - The configuration the descriptors depend on.
 * @returns The groups.
 * @example
 * ```ts
 * import { buildOpenApiDocument, gatewayOperationGroups } from '@tollgate/core/gateway';
 * const document = buildOpenApiDocument(gatewayOperationGroups({ evidenceAccess: 'merchant' }));
 * ```
 */
export function gatewayOperationGroups(options: GatewayOperationOptions): OperationGroup[] {
  return [
    merchantOperations,
    refOperations,
    receiveOperations,
    recoveryOperations(options.evidenceAccess),
    evidenceOperations(options.evidenceAccess),
    orderOperations,
    refundOperations,
    payPageOperations,
    openApiOperations,
  ];
}

/**
 * The groups narrowed to the operations `routes` serves (a gateway without payments serves no `/receive`,
 * one without order mode no `/order`), empty groups dropped; an operation serves the routes
 * {@link operationServes} says. Routes without a descriptor are not invented: the gateway-server test
 * that compares the route table with the document catches them.
 *
 * @param groups - The descriptors to choose from.
 * @param routes - The route table.
 * @returns The groups of the served operations.
 * @example
 * ```ts
 * import { gatewayOperationGroups, servedOperationGroups } from '@tollgate/core/gateway';
 * const groups = servedOperationGroups(gatewayOperationGroups({ evidenceAccess: 'public' }), gateway.routes);
 * ```
 */
export function servedOperationGroups(groups: readonly OperationGroup[], routes: readonly Pick<Route, 'method' | 'path'>[]): OperationGroup[] {
  return groups
    .map((group) => ({ ...group, operations: group.operations.filter((operation) => routes.some((route) => operationServes(operation, route))) }))
    .filter((group) => group.operations.length > 0);
}

/**
 * The document checked in at `docs/openapi/gateway.json` (`npm run openapi` writes it): every gateway
 * group under the default `public` evidence policy, order mode's included, then `GET /healthz` as
 * `tollgate-gateway` serves it. A `tollgate-gateway` with the default configuration and order mode on
 * (`GATEWAY_ORDER_MODE=on`) serves exactly this document; with order mode off, the same document without
 * the `order` and `refund` groups (their tags, operations and the schemas only they use).
 *
 * @returns The document.
 * @example
 * ```ts
 * import { gatewayOpenApiDocument, serializeOpenApiDocument } from '@tollgate/core/gateway';
 * const text = serializeOpenApiDocument(gatewayOpenApiDocument());
 * ```
 */
export function gatewayOpenApiDocument(): OpenApiDocument {
  return buildOpenApiDocument([...gatewayOperationGroups({ evidenceAccess: 'public' }), healthOperations]);
}
