import type { GatewayErrorCode } from '../../errors/gateway';
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
  /** The JSON body; none for an empty body. */
  readonly body?: NamedSchema;
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
  /** The JSON body the handler parses, and the route's body cap (`BodySpec.maxBytes`). */
  readonly body?: { readonly schema: NamedSchema; readonly maxBytes: number };
  /** Success statuses, and error statuses documented with headers of their own (see {@link ResponseDescriptor.codes}). */
  readonly responses: Readonly<Record<number, ResponseDescriptor>>;
  /** Domain error codes the operation can answer with. */
  readonly errors: readonly GatewayErrorCode[];
  /** Behind a per-client rate limit (`rate_limited`, 429, `Retry-After`). */
  readonly rateLimited?: boolean;
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
}
