import type { JsonSchema } from '@valibot/to-json-schema';
import type { JsonObject } from './operation-object';

/** An OpenAPI 3.1 document as plain JSON. */
export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: { readonly title: string; readonly version: string; readonly description: string; readonly license: { readonly name: string; readonly identifier: string } };
  readonly tags: readonly { readonly name: string; readonly description: string }[];
  readonly paths: Readonly<Record<string, Readonly<Record<string, JsonObject>>>>;
  readonly components: {
    readonly schemas: Readonly<Record<string, JsonSchema>>;
    readonly securitySchemes: Readonly<Record<string, JsonObject>>;
  };
}

/**
 * The document as JSON text: two-space indented with a final newline, the form checked in.
 *
 * @param document - The document.
 * @returns The text.
 * @example
 * ```ts
 * import { buildOpenApiDocument, serializeOpenApiDocument, refOperations } from '@tollgate/core/gateway';
 * const text = serializeOpenApiDocument(buildOpenApiDocument([refOperations]));
 * ```
 */
export function serializeOpenApiDocument(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
