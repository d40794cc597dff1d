import * as v from 'valibot';
import type { GatewayErrorCode } from '../errors/gateway';
import type { AnySchema } from './json-schema';

/**
 * The vocabulary route groups describe their operations in. A descriptor is plain data next to the
 * route table it describes: it names the valibot schemas the handlers parse with (requests) and the
 * valibot schemas of what they answer (responses), so the OpenAPI document is generated from the same
 * schemas, never from a hand-kept copy. `buildOpenApiDocument` turns descriptors into the document.
 *
 * @module
 */

/** A valibot schema published as `components.schemas.<name>` and referenced by `$ref`. */
export interface NamedSchema<Schema extends AnySchema = AnySchema> {
  /** Component name, unique in the document (PascalCase). */
  readonly name: string;
  readonly schema: Schema;
}

/**
 * Names a schema (its type is kept, so it can be nested in other schemas and still typecheck).
 *
 * @param name - The component name.
 * @param schema - The schema.
 * @returns `{ name, schema }`.
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { named } from '@tollgate/core/gateway';
 * const revokedRef = named('RevokedRef', v.object({ refId: v.string() }));
 * ```
 */
export function named<Schema extends AnySchema>(name: string, schema: Schema): NamedSchema<Schema> {
  return { name, schema };
}

/**
 * Who may call an operation:
 * - `public`: anyone;
 * - `bearer`: `Authorization: Bearer <API key>` of a merchant;
 * - `optional-bearer`: anyone, and a merchant key changes what the call does (registration attaches the
 *   payTo to the caller's merchant);
 * - `payment`: anyone; with a `PAYMENT-SIGNATURE` header the request pays, without it the answer is the 402.
 */
export type OperationSecurity = 'public' | 'bearer' | 'optional-bearer' | 'payment';

/** A response header. */
export interface HeaderDescriptor {
  readonly description: string;
  /** Whether every response of this status carries it. */
  readonly required: boolean;
  /** The header value as a string schema (`Location`, `Cache-Control`). */
  readonly schema?: AnySchema;
  /**
   * The header carries base64 of a JSON document (`PAYMENT-REQUIRED`, `PAYMENT-RESPONSE`): the schemas the
   * decoded JSON matches (any one of them).
   */
  readonly base64Json?: readonly NamedSchema[];
}

/** One documented status of an operation. */
export interface ResponseDescriptor {
  readonly description: string;
  /**
   * The JSON body, or the bodies it may be (any one of them: a settlement answers a payment's or a
   * refund's receipt); none for an empty body.
   */
  readonly body?: NamedSchema | readonly NamedSchema[];
  /**
   * A text body that is not JSON (the pay page's HTML, its script and stylesheet): the media types it
   * may carry, without parameters (`text/html`). Not with `body`.
   */
  readonly text?: readonly string[];
  /** Headers by name as sent (`PAYMENT-REQUIRED`). `Retry-After` and `WWW-Authenticate` are added where due. */
  readonly headers?: Readonly<Record<string, HeaderDescriptor>>;
  /**
   * The gateway error codes this response stands for, when it documents an error status itself (to add
   * headers such as `PAYMENT-REQUIRED`). Without `body`, the body is generated from the codes like any
   * error response; with one, it must cover every code of the status.
   */
  readonly codes?: readonly GatewayErrorCode[];
}

/** A path parameter (`:refId` in the route path). */
export interface PathParamDescriptor {
  readonly description: string;
  readonly schema: AnySchema;
}

/**
 * One operation: a route of the table, by its method and path exactly as the route declares them
 * (`/ref/:refId`), with what it takes and what it answers.
 *
 * Errors are listed by code only: their statuses come from `gatewayErrorCodes` and their bodies are the
 * gateway envelope with the code narrowed. The builder adds what every route of its kind can answer
 * (`invalid_request` for a malformed request; `unauthorized` behind bearer auth; `rate_limited` where
 * `rateLimited`; `payload_too_large`, `unsupported_media_type` and `request_timeout` with a body) and a
 * `default` response (any code, e.g. `internal_error`).
 */
export interface OperationDescriptor {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  /** Unique in the document; camelCase. */
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly security: OperationSecurity;
  /** Every `:name` segment of `path` must have one. */
  readonly pathParams?: Readonly<Record<string, PathParamDescriptor>>;
  /** The query schema the handler parses with (an object schema, possibly piped with object-level checks). */
  readonly query?: AnySchema;
  /**
   * The JSON body the handler parses, the route's body cap (`BodySpec.maxBytes`), and whether the body
   * may be left out (`BodySpec.optional`).
   */
  readonly body?: { readonly schema: NamedSchema; readonly maxBytes: number; readonly optional?: boolean };
  /** Success statuses, and error statuses documented with headers of their own (see {@link ResponseDescriptor.codes}). */
  readonly responses: Readonly<Record<number, ResponseDescriptor>>;
  /** Domain error codes the operation can answer with. */
  readonly errors: readonly GatewayErrorCode[];
  /** Behind a per-client rate limit (`rate_limited`, 429, `Retry-After`). */
  readonly rateLimited?: boolean;
  /**
   * Which routes of the table this operation describes (see {@link operationServes}):
   * - `exact` (default): the route that declares exactly `method` and `path`;
   * - `instances`: routes that declare concrete paths fitting `path`, each `:name` segment valid under
   *   its `pathParams` schema. For files named by their content hash (the pay page's script and
   *   stylesheet): their names change with every edit, so the document states the pattern, not the names.
   */
  readonly routeMatch?: 'exact' | 'instances';
}

/**
 * The operations of one route group (one route module), published as one OpenAPI tag. Each route module
 * has one descriptor module; adding a group is that module plus one line in `gatewayOperationGroups`.
 *
 * @example
 * ```ts
 * import type { OperationGroup } from '@tollgate/core/gateway';
 * const health: OperationGroup = { name: 'health', description: 'Liveness.', operations: [] };
 * ```
 */
export interface OperationGroup {
  /** Tag name. */
  readonly name: string;
  readonly description: string;
  readonly operations: readonly OperationDescriptor[];
  /**
   * Schemas the group's responses nest and that deserve a name of their own (`RefSnapshot`): published
   * as components and referenced wherever they are nested. A nested schema not listed here is inlined.
   */
  readonly sharedSchemas?: readonly NamedSchema[];
  /**
   * The configuration the group's routes need beyond a default gateway with payments and evidence
   * (`order mode (GATEWAY_ORDER_MODE=on)`): said in its tag description and in `info.description`.
   */
  readonly servedOnlyIn?: string;
}

/**
 * Whether `operation` describes `route` (see {@link OperationDescriptor.routeMatch}).
 *
 * @param operation - The descriptor.
 * @param route - A route of the table, by method and path as it declares them.
 * @returns True when the route is this operation.
 * @example
 * ```ts
 * import { operationServes, payPageOperations } from '@tollgate/core/gateway';
 * const assets = payPageOperations.operations[1]!;
 * operationServes(assets, { method: 'GET', path: '/pay/assets/pay-0123456789abcdef.js' }); // true
 * ```
 */
export function operationServes(operation: Pick<OperationDescriptor, 'method' | 'path' | 'pathParams' | 'routeMatch'>, route: { readonly method: string; readonly path: string }): boolean {
  if (route.method !== operation.method) return false;
  if ((operation.routeMatch ?? 'exact') === 'exact') return route.path === operation.path;
  const pattern = operation.path.split('/');
  const segments = route.path.split('/');
  if (pattern.length !== segments.length) return false;
  return pattern.every((part, index) => {
    const segment = segments[index] as string;
    if (!part.startsWith(':')) return part === segment;
    const param = operation.pathParams?.[part.slice(1)];
    return param !== undefined && v.is(param.schema, segment);
  });
}
