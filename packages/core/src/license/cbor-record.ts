import * as v from 'valibot';
import type { CborKey, CborValue } from '../cbor';

/**
 * One field of an integer-keyed CBOR record: its map key, the valibot schema its decoded value must pass,
 * whether it may be absent, and how a typed value turns back into a CBOR value (identity for plain
 * values, a nested record's `toCbor` for sub-records).
 */
export interface RecordField<Output, Optional extends boolean> {
  readonly key: number;
  readonly schema: v.GenericSchema<unknown, Output>;
  readonly optional: Optional;
  readonly toCbor: (value: Output) => CborValue;
}

/** Any {@link RecordField}, whatever its output type (the constraint of {@link cborRecord}). */
export interface AnyRecordField {
  readonly key: number;
  readonly schema: v.GenericSchema<unknown, unknown>;
  readonly optional: boolean;
  readonly toCbor: (value: never) => CborValue;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The typed object a record of `Fields` decodes to: optional fields become optional properties. */
export type RecordValue<Fields extends Record<string, AnyRecordField>> = Simplify<
  { [K in keyof Fields as Fields[K]['optional'] extends true ? never : K]: v.InferOutput<Fields[K]['schema']> } & {
    [K in keyof Fields as Fields[K]['optional'] extends true ? K : never]?: v.InferOutput<Fields[K]['schema']>;
  }
>;

/**
 * A record layout: a valibot schema from the decoded CBOR map to the typed object, and the inverse.
 * The schema refuses unknown keys, missing required keys and values that break a field's schema.
 */
export interface CborRecordSpec<T> {
  /** The record's name in messages (`ValidationTicket`). */
  readonly name: string;
  /** Decoded `Map` → typed object. */
  readonly schema: v.GenericSchema<unknown, T>;
  /** Typed object → `Map` ready for `encodeCanonical`. Throws `TypeError` on a malformed object. */
  readonly toCbor: (value: T) => Map<CborKey, CborValue>;
  /** Field name → integer key, for documentation and vectors. */
  readonly fieldKeys: Readonly<Record<string, number>>;
}

const identity = (value: unknown): CborValue => value as CborValue;

/**
 * A required field holding a plain CBOR value (integer, bytes, text, bool, list or text-keyed map).
 *
 * @param key - The integer map key.
 * @param schema - The valibot schema of the decoded value.
 * @returns The field definition.
 */
export function field<Output>(key: number, schema: v.GenericSchema<unknown, Output>): RecordField<Output, false> {
  return { key, schema, optional: false, toCbor: identity };
}

/**
 * An optional field: absent from the map when the typed value is `undefined` (never encoded as null).
 *
 * @param key - The integer map key.
 * @param schema - The valibot schema of the decoded value.
 * @returns The field definition.
 */
export function optionalField<Output>(key: number, schema: v.GenericSchema<unknown, Output>): RecordField<Output, true> {
  return { key, schema, optional: true, toCbor: identity };
}

/**
 * A field holding a nested integer-keyed record.
 *
 * @param key - The integer map key.
 * @param spec - The nested record's layout.
 * @param optional - Whether the field may be absent.
 * @returns The field definition.
 */
export function recordField<T, Optional extends boolean = false>(key: number, spec: CborRecordSpec<T>, optional?: Optional): RecordField<T, Optional> {
  return { key, schema: spec.schema, optional: (optional ?? false) as Optional, toCbor: spec.toCbor };
}

/**
 * Builds a record layout from named fields. Keys must be unique non-negative integers.
 *
 * @param name - The record's name in error messages.
 * @param fields - Field name → definition (from {@link field}, {@link optionalField}, {@link recordField}).
 * @param check - A rule across fields (`not_after > not_before`): returns a message when broken.
 * @returns The layout.
 * @throws TypeError when two fields share a key.
 */
export function cborRecord<const Fields extends Record<string, AnyRecordField>>(
  name: string,
  fields: Fields,
  check?: (value: RecordValue<Fields>) => string | undefined,
): CborRecordSpec<RecordValue<Fields>> {
  const nameByKey = new Map<number, string>();
  const entries: Record<string, v.GenericSchema<unknown, unknown>> = {};
  const fieldKeys: Record<string, number> = {};
  for (const [fieldName, definition] of Object.entries(fields)) {
    if (!Number.isSafeInteger(definition.key) || definition.key < 0 || nameByKey.has(definition.key)) {
      throw new TypeError(`${name}: key ${definition.key} of field ${fieldName} is invalid or used twice`);
    }
    nameByKey.set(definition.key, fieldName);
    fieldKeys[fieldName] = definition.key;
    entries[fieldName] = definition.optional ? v.optional(definition.schema) : definition.schema;
  }
  const objectSchema = v.strictObject(entries);

  const schema = v.pipe(
    v.instance(Map, `${name} must be a map`),
    v.rawTransform<Map<unknown, unknown>, RecordValue<Fields>>(({ dataset, addIssue, NEVER }) => {
      const object: Record<string, unknown> = {};
      for (const [key, value] of dataset.value) {
        const fieldName = typeof key === 'number' ? nameByKey.get(key) : undefined;
        if (fieldName === undefined) {
          addIssue({ message: `${name}: unknown key ${String(key)}` });
          return NEVER;
        }
        object[fieldName] = value;
      }
      const result = v.safeParse(objectSchema, object);
      if (!result.success) {
        for (const issue of result.issues) {
          const path = v.getDotPath(issue) ?? '';
          const top = path.split('.')[0] ?? '';
          const where = top in fieldKeys ? `${path} (key ${fieldKeys[top]})` : path;
          addIssue({ message: `${name}.${where}: ${issue.message}` });
        }
        return NEVER;
      }
      const output = result.output as RecordValue<Fields>;
      const broken = check?.(output);
      if (broken !== undefined) {
        addIssue({ message: `${name}: ${broken}` });
        return NEVER;
      }
      return output;
    }),
  );

  const toCbor = (value: RecordValue<Fields>): Map<CborKey, CborValue> => {
    if (typeof value !== 'object' || value === null) throw new TypeError(`${name} must be an object`);
    for (const property of Object.keys(value)) {
      if (!(property in fieldKeys)) throw new TypeError(`${name} has no field ${property}`);
    }
    const map = new Map<CborKey, CborValue>();
    for (const [fieldName, definition] of Object.entries(fields)) {
      const fieldValue = (value as Record<string, unknown>)[fieldName];
      if (fieldValue === undefined) continue;
      map.set(definition.key, (definition.toCbor as (input: unknown) => CborValue)(fieldValue));
    }
    return map;
  };

  return Object.freeze({ name, schema, toCbor, fieldKeys: Object.freeze(fieldKeys) });
}
