import { CborDecodeError, CborEncodeError } from './errors';
import type { CborKey, CborValue } from './values';

/**
 * What each field kind of {@link readCborField} returns:
 * `int` a safe integer, `uint` a non-negative safe integer, `bigint` any integer as a bigint,
 * `text`, `bytes`, `bool`, `array`, `map`.
 */
export interface CborFieldKinds {
  int: number;
  uint: number;
  bigint: bigint;
  text: string;
  bytes: Uint8Array;
  bool: boolean;
  array: CborValue[];
  map: Map<CborKey, CborValue>;
}

/** A field kind understood by {@link readCborField}. */
export type CborFieldKind = keyof CborFieldKinds;

const fieldCheckers: { [Kind in CborFieldKind]: (value: CborValue) => boolean } = {
  int: (value) => Number.isSafeInteger(value),
  uint: (value) => Number.isSafeInteger(value) && (value as number) >= 0,
  bigint: (value) => typeof value === 'bigint' || Number.isSafeInteger(value),
  text: (value) => typeof value === 'string',
  bytes: (value) => value instanceof Uint8Array,
  bool: (value) => typeof value === 'boolean',
  array: (value) => Array.isArray(value),
  map: (value) => value instanceof Map,
};

/** Integer keys within the safe range are stored as numbers, so lookups match what the decoder returns. */
function normalizeKey(key: CborKey): CborKey {
  return typeof key === 'bigint' && key >= BigInt(Number.MIN_SAFE_INTEGER) && key <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(key) : key;
}

/**
 * Builds a map for {@link encodeCanonical} from `[key, value]` entries, leaving out entries whose value is
 * `undefined`: an absent optional is omitted, never written as null or undefined. Entry order does not
 * matter (the encoder sorts keys). Integer keys are normalised (`1n` becomes `1`).
 *
 * @param entries - Key/value pairs; a value of `undefined` means "absent".
 * @returns A new `Map` holding the present entries.
 * @throws {@link CborEncodeError} `duplicate_key` when two entries name the same key.
 *
 * @example
 * ```ts
 * import { cborMap, encodeCanonical } from '@tollgate/core/cbor';
 * const retryAfter: number | undefined = undefined;
 * encodeCanonical(cborMap([[0, 1005], [1, 'Slow down.'], [2, retryAfter]])); // {0: 1005, 1: "Slow down."}
 * ```
 */
export function cborMap<Value extends CborValue>(entries: Iterable<readonly [CborKey, Value | undefined]>): Map<CborKey, Value> {
  const map = new Map<CborKey, Value>();
  const seen = new Set<CborKey>();
  for (const [rawKey, value] of entries) {
    const key = normalizeKey(rawKey);
    if (seen.has(key)) {
      throw new CborEncodeError('duplicate_key', `Map key ${String(key)} appears twice.`, { path: `\${${String(key)}}` });
    }
    seen.add(key);
    if (value !== undefined) map.set(key, value);
  }
  return map;
}

/**
 * Narrows a decoded value to a map, for the top of a request body or a nested structure.
 *
 * @param value - A decoded value.
 * @param what - A name for the error message (`"request body"`).
 * @returns The same value, typed as a map.
 * @throws {@link CborDecodeError} `wrong_type` when it is not a map.
 *
 * @example
 * ```ts
 * import { decodeCanonical, expectCborMap, readCborField } from '@tollgate/core/cbor';
 * const request = expectCborMap(decodeCanonical(body), 'request body');
 * const licenseKey = readCborField(request, 1, 'text');
 * ```
 */
export function expectCborMap(value: CborValue | undefined, what = 'value'): Map<CborKey, CborValue> {
  if (!(value instanceof Map)) throw new CborDecodeError('wrong_type', `Expected ${what} to be a map.`, { expected: 'map' });
  return value;
}

/**
 * Reads a required field of a decoded map and checks its kind.
 *
 * @param map - A decoded map.
 * @param key - The field's key (integer keys may be given as number or bigint).
 * @param kind - The expected {@link CborFieldKind}.
 * @returns The field's value, typed per kind (a `bigint` field always comes back as a bigint).
 * @throws {@link CborDecodeError} `missing_key` when absent, `wrong_type` when of another kind.
 *
 * @example
 * ```ts
 * import { decodeCanonical, expectCborMap, readCborField } from '@tollgate/core/cbor';
 * const ticket = expectCborMap(decodeCanonical(bytes));
 * const expiresAt = readCborField(ticket, 3, 'uint');
 * ```
 */
export function readCborField<Kind extends CborFieldKind>(map: Map<CborKey, CborValue>, key: CborKey, kind: Kind): CborFieldKinds[Kind] {
  const value = readOptionalCborField(map, key, kind);
  if (value === undefined) {
    throw new CborDecodeError('missing_key', `Required key ${String(key)} is missing.`, { key: String(key), expected: kind });
  }
  return value;
}

/**
 * Reads an optional field of a decoded map: `undefined` when the key is absent, otherwise its value checked
 * against `kind`. A present `null` is not "absent": it fails the kind check, since optionals are omitted.
 *
 * @param map - A decoded map.
 * @param key - The field's key.
 * @param kind - The expected {@link CborFieldKind}.
 * @returns The typed value, or `undefined` when absent.
 * @throws {@link CborDecodeError} `wrong_type` when present with another kind.
 *
 * @example
 * ```ts
 * import { decodeCanonical, expectCborMap, readOptionalCborField } from '@tollgate/core/cbor';
 * const error = expectCborMap(decodeCanonical(body));
 * const retryAfter = readOptionalCborField(error, 2, 'uint'); // number | undefined
 * ```
 */
export function readOptionalCborField<Kind extends CborFieldKind>(
  map: Map<CborKey, CborValue>,
  key: CborKey,
  kind: Kind,
): CborFieldKinds[Kind] | undefined {
  const normalized = normalizeKey(key);
  if (!map.has(normalized)) return undefined;
  const value = map.get(normalized) as CborValue;
  if (!fieldCheckers[kind](value)) {
    throw new CborDecodeError('wrong_type', `Key ${String(key)} must hold a ${kind}.`, { key: String(key), expected: kind });
  }
  return (kind === 'bigint' ? BigInt(value as number | bigint) : value) as CborFieldKinds[Kind];
}
