import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig, type JsonSchema, type OverrideActionContext, type OverrideSchemaContext } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { evmAddressSchema, publicHttpsUrlSchema } from '../fields/schema-fields';

/**
 * Valibot → JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) for the gateway's OpenAPI document,
 * through `@valibot/to-json-schema` with `errorMode: 'throw'`: a schema feature the converter does not
 * know fails the generation instead of vanishing from the contract. What JSON Schema cannot say is
 * handled here, explicitly:
 *
 * - `check`, `partial_check` and `raw_check` (custom predicates) keep the schema and add their message to
 *   its `description` ("Expected: …"), so the reader learns the rule the gateway enforces; so does
 *   `regex`, whose message says in words what its pattern means. Two predicates of shared fields have a
 *   JSON Schema equivalent as well: the EVM address (`pattern`) and the public HTTPS URL (`format: uri`,
 *   `pattern: ^https://`). A predicate whose message is computed per input is noted as "further rules
 *   that its error message names".
 * - `max_bytes` becomes `maxLength` (a string of N UTF-8 bytes has at most N code points, so it is a true
 *   if looser bound) and the byte bound goes to the description.
 * - `custom` schemas (predicates over any value) become `{}` with their message as description.
 * - transformations: requests are read with `typeMode: 'input'` (what a client sends: a pipe stops before
 *   its first transform) and responses with `'output'`, where a transform (a cast such as `as Network`)
 *   adds nothing to the shape.
 */

/** Any valibot schema. */
export type AnySchema = v.GenericSchema;

/** Whether a schema describes what a client sends (`input`) or what the gateway answers (`output`). */
export type SchemaDirection = 'input' | 'output';

/** Where named schemas live in the document. */
export const componentSchemaPath = '#/components/schemas/';

type Fragment = Pick<JsonSchema, 'pattern' | 'format'>;

function firstAction(schema: AnySchema, type: string): object {
  const found = 'pipe' in schema ? (schema.pipe as readonly { type: string }[]).find((item) => item.type === type) : undefined;
  // The fields changed shape: the refinement below no longer applies and must be revisited.
  if (found === undefined) throw new TypeError(`openapi: the shared field schema has no ${type} action any more`);
  return found;
}

const publicHttpsUrlCheck = firstAction(publicHttpsUrlSchema, 'raw_check');

// Predicates of shared fields with a JSON Schema equivalent, keyed by the action object itself.
const knownPredicates = new Map<object, Fragment>([
  [firstAction(evmAddressSchema, 'check'), { pattern: '^0x[0-9a-fA-F]{40}$' }],
  [publicHttpsUrlCheck, { format: 'uri', pattern: '^https://' }],
]);

// Rules in words of known predicates whose messages are computed per input, keyed by the action object
// (not its type: another raw_check, such as an order's metadata, says something else).
const staticRuleOf = new Map<object, string>([
  [publicHttpsUrlCheck, 'a public HTTPS URL on port 443, without credentials or fragment, whose host is not a private or reserved address'],
]);
const dynamicRule = 'further rules that its error message names';

// Rules are collected under this key while converting, then written into `description` (see `finish`).
const rulesKey = 'x-tollgate-rules';
type WithRules = JsonSchema & { [rulesKey]?: string[] };

function withRule(jsonSchema: JsonSchema, rule: string | undefined): JsonSchema {
  if (rule === undefined) return { ...jsonSchema };
  const rules = (jsonSchema as WithRules)[rulesKey] ?? [];
  return { ...jsonSchema, [rulesKey]: rules.includes(rule) ? rules : [...rules, rule] } as JsonSchema;
}

function ruleOf(action: { type: string; message?: unknown }): string {
  if (typeof action.message === 'string') return action.message;
  return staticRuleOf.get(action) ?? dynamicRule;
}

function refineAction(context: OverrideActionContext): JsonSchema | undefined {
  const action = context.valibotAction as { type: string; message?: unknown; requirement?: unknown };
  switch (action.type) {
    case 'check':
    case 'partial_check':
    case 'raw_check': {
      const fragment = knownPredicates.get(context.valibotAction) ?? {};
      if (fragment.pattern !== undefined && context.jsonSchema.pattern !== undefined) {
        throw new TypeError('openapi: a known predicate adds a pattern to a schema that already has one');
      }
      return withRule({ ...context.jsonSchema, ...fragment }, ruleOf(action));
    }
    case 'max_bytes': {
      const bytes = action.requirement as number;
      const maxLength = Math.min(context.jsonSchema.maxLength ?? bytes, bytes);
      return withRule({ ...context.jsonSchema, maxLength }, ruleOf(action));
    }
    case 'regex':
      // Converted to `pattern`; its message says in words what the pattern means (and, before a
      // transform, what the checks after it add: "an integer from 1 to 100").
      return context.errors === undefined ? withRule(context.jsonSchema, typeof action.message === 'string' ? action.message : undefined) : undefined;
    case 'transform':
      // Only reached with typeMode 'output' (input stops before it): a cast adds nothing to the shape.
      return { ...context.jsonSchema };
    default:
      return undefined;
  }
}

function refineSchema(context: OverrideSchemaContext): JsonSchema | undefined {
  const schema = context.valibotSchema as { type: string; message?: unknown };
  if (schema.type !== 'custom') return undefined;
  return withRule({}, typeof schema.message === 'string' ? schema.message : dynamicRule);
}

/** Writes the collected rules of every subschema into its `description` ("Expected: …"). */
function finish(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(finish);
  if (typeof value !== 'object' || value === null) return value;
  const { [rulesKey]: rules, ...rest } = value as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(rest)) result[key] = finish(child);
  if (Array.isArray(rules) && rules.length > 0) {
    const expected = `Expected: ${rules.join('; ')}.`;
    result['description'] = typeof result['description'] === 'string' ? `${result['description']} ${expected}` : expected;
  }
  return result;
}

function config(direction: SchemaDirection, definitions?: Record<string, AnySchema>): ConversionConfig {
  return {
    target: 'draft-2020-12',
    typeMode: direction,
    errorMode: 'throw',
    overrideAction: refineAction,
    overrideSchema: refineSchema,
    overrideRef: ({ referenceId }) => `${componentSchemaPath}${referenceId}`,
    ...(definitions === undefined ? {} : { definitions }),
  };
}

/**
 * Converts named schemas into `components.schemas` entries. A named schema used inside another becomes a
 * `$ref` to `#/components/schemas/<name>`; everything else is inlined.
 *
 * @param named - Schemas by component name.
 * @param direction - `input` for request schemas, `output` for response schemas.
 * @returns JSON Schemas by component name.
 * @throws Error when a schema uses a feature the converter cannot express and this module does not handle.
 * @example
 * ```ts
 * import { toComponentSchemas } from '@tollgate/core/gateway';
 * import { createRefRequestSchema } from '@tollgate/core/gateway';
 * const schemas = toComponentSchemas({ CreateRefRequest: createRefRequestSchema }, 'input');
 * ```
 */
export function toComponentSchemas(named: Readonly<Record<string, AnySchema>>, direction: SchemaDirection): Record<string, JsonSchema> {
  return finish(toJsonSchemaDefs({ ...named }, config(direction))) as Record<string, JsonSchema>;
}

/**
 * Converts one schema for use inline (a parameter, an error envelope). Named schemas inside it become
 * `$ref`s to their components.
 *
 * @param schema - The schema.
 * @param direction - `input` or `output`.
 * @param named - The named schemas of that direction, so that nested uses become references.
 * @returns The JSON Schema, without `$schema` or `$defs`.
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { toInlineSchema } from '@tollgate/core/gateway';
 * toInlineSchema(v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/)), 'input'); // { type: 'string', pattern: '^[0-9a-f]{32}$' }
 * ```
 */
export function toInlineSchema(schema: AnySchema, direction: SchemaDirection, named: Readonly<Record<string, AnySchema>> = {}): JsonSchema {
  const hasNamed = Object.keys(named).length > 0;
  const { $schema: _schema, $defs: _defs, ...inline } = toJsonSchema(schema, config(direction, hasNamed ? { ...named } : undefined)) as JsonSchema & { $defs?: unknown };
  return finish(inline) as JsonSchema;
}
