import type { JsonSchema } from '@valibot/to-json-schema';
import type { NamedSchema } from './descriptors';
import { componentSchemaPath, toComponentSchemas, toInlineSchema, type AnySchema, type SchemaDirection } from './json-schema';

/**
 * The named schemas of one document, by direction. Every name is registered before any conversion, so
 * that a named schema nested in another (or in an inline schema) becomes a `$ref` wherever it appears.
 * A name stands for one schema object in one direction: a second schema under the same name, or the
 * same name used for a request and a response, is a descriptor mistake and throws.
 */
export class SchemaRegistry {
  private readonly byDirection: Record<SchemaDirection, Map<string, AnySchema>> = { input: new Map(), output: new Map() };

  /**
   * Registers a named schema.
   *
   * @param named - The schema and its component name.
   * @param direction - `input` (request) or `output` (response).
   * @throws TypeError when the name is taken by another schema or by the other direction.
   */
  add(named: NamedSchema, direction: SchemaDirection): void {
    const other = direction === 'input' ? 'output' : 'input';
    if (this.byDirection[other].has(named.name)) throw new TypeError(`openapi: schema ${named.name} is used both as a request and as a response`);
    const known = this.byDirection[direction].get(named.name);
    if (known !== undefined && known !== named.schema) throw new TypeError(`openapi: two different schemas are named ${named.name}`);
    this.byDirection[direction].set(named.name, named.schema);
  }

  /**
   * A reference to a registered schema.
   *
   * @param named - The schema.
   * @returns `{ $ref: '#/components/schemas/<name>' }`.
   */
  ref(named: NamedSchema): JsonSchema {
    if (!this.byDirection.input.has(named.name) && !this.byDirection.output.has(named.name)) throw new TypeError(`openapi: schema ${named.name} was not registered`);
    return { $ref: `${componentSchemaPath}${named.name}` };
  }

  /**
   * Converts an unnamed schema; registered schemas of the same direction nested in it become references.
   *
   * @param schema - The schema.
   * @param direction - `input` or `output`.
   * @returns The JSON Schema.
   */
  inline(schema: AnySchema, direction: SchemaDirection): JsonSchema {
    return toInlineSchema(schema, direction, Object.fromEntries(this.byDirection[direction]));
  }

  /**
   * Converts every registered schema.
   *
   * @returns `components.schemas`, sorted by name.
   */
  components(): Record<string, JsonSchema> {
    const all = { ...toComponentSchemas(Object.fromEntries(this.byDirection.input), 'input'), ...toComponentSchemas(Object.fromEntries(this.byDirection.output), 'output') };
    return Object.fromEntries(Object.entries(all).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}
