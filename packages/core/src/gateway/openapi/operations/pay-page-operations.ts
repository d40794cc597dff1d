import * as v from 'valibot';
import { payPageContentSecurityPolicy } from '../../routes/pay-page-routes';
import type { HeaderDescriptor, OperationGroup } from '../../../openapi/descriptors';
import { refIdParam } from './ref-operations';

const html = ['text/html'];

// What every pay page carries (payable or refused): a person reads it, so it is never cached and never framed.
const pageHeaders: Record<string, HeaderDescriptor> = {
  'Content-Security-Policy': {
    description: 'Same-origin script, style, images and fetch only; no inline code, never framed, Trusted Types required.',
    required: true,
    schema: v.literal(payPageContentSecurityPolicy),
  },
  'Cache-Control': { description: 'no-store.', required: true, schema: v.literal('no-store') },
  'X-Frame-Options': { description: 'DENY.', required: true, schema: v.literal('DENY') },
};

/**
 * The operations of `payPageRoutes` (`routes/pay-page-routes.ts`), served with payments: the wallet page
 * of a ref (server-rendered HTML that pays through the same-origin `/receive`) and its two static files.
 * Their answers are for browsers, so they are HTML, JavaScript and CSS, never JSON; only what the
 * routing layer answers before the handler (`invalid_request`, and `default`) is the JSON envelope.
 *
 * @example
 * ```ts
 * import { buildOpenApiDocument, payPageOperations } from '@tollgate/core/gateway';
 * const document = buildOpenApiDocument([payPageOperations]);
 * ```
 */
export const payPageOperations: OperationGroup = {
  name: 'pay-page',
  description: 'The wallet page: a payer opens /pay/{refId} in a browser and pays the ref with an injected wallet (EIP-1193), through /receive.',
  operations: [
    {
      method: 'GET',
      path: '/pay/:refId',
      operationId: 'getPayPage',
      summary: "The ref's payment page (HTML)",
      description:
        'For people, not programs: what a client reads by program is GET /ref/{refId} and /receive. The page shows the snapshot of the ref (amount, payTo, network, description) and pays it with the browser wallet; its script and stylesheet are the two files under /pay/assets/, pinned by Subresource Integrity. A ref that cannot be paid gets a page saying why, with the status of the reason.',
      security: 'public',
      pathParams: { refId: refIdParam },
      responses: {
        200: { description: 'The payment page of a payable ref.', text: html, headers: pageHeaders },
        404: { description: 'A page saying there is no such ref (a malformed id included).', text: html, headers: pageHeaders },
        410: { description: 'A page saying the ref cannot be paid any more: expired, revoked, its payTo retired, or its network no longer served.', text: html, headers: pageHeaders },
        429: {
          description: 'A page asking to wait: too many pages were asked for from this address.',
          text: html,
          headers: { ...pageHeaders, 'Retry-After': { description: 'Seconds to wait before reloading.', required: true, schema: v.pipe(v.string(), v.regex(/^[0-9]+$/)) } },
        },
      },
      errors: [],
    },
    {
      method: 'GET',
      path: '/pay/assets/:file',
      operationId: 'getPayPageAsset',
      summary: "The pay page's script or stylesheet (immutable)",
      description:
        'Two files, named by their content hash: take their names from the page (script src, link href), never build them. A name changes with the content, so each name is cached forever; a name this gateway does not serve (an older version) is not_found.',
      security: 'public',
      routeMatch: 'instances',
      pathParams: {
        file: { description: 'pay-<first 16 hex digits of the SHA-256 of the content>.js or .css.', schema: v.pipe(v.string(), v.regex(/^pay-[0-9a-f]{16}\.(js|css)$/)) },
      },
      responses: {
        200: {
          description: 'The file.',
          text: ['text/javascript', 'text/css'],
          headers: { 'Cache-Control': { description: 'public, max-age=31536000, immutable.', required: true, schema: v.literal('public, max-age=31536000, immutable') } },
        },
      },
      errors: ['not_found'],
    },
  ],
};
