/**
 * A map key the canonical codec accepts: an integer (`number` or `bigint`, within the 64-bit CBOR range)
 * or a text string. Byte-string keys are left out on purpose: a JS `Map` compares `Uint8Array` keys by
 * identity, so a decoded byte-string key could never be looked up.
 */
export type CborKey = number | bigint | string;

/**
 * A data item of the canonical subset, as `encodeCanonical` takes it and `decodeCanonical` returns it.
 *
 * - integers: `number` when |n| ≤ 2^53 − 1, otherwise `bigint` (the encoder accepts either form);
 * - byte strings: plain `Uint8Array`; text strings: `string`; `boolean`; `null`;
 * - arrays: `CborValue[]`; maps: `Map<CborKey, CborValue>` (plain objects are refused);
 * - only when the options allow them: non-integral `number`s and {@link CborFloat} (floats),
 *   {@link CborTag} (tags).
 *
 * `undefined` is not a member: absent optionals are omitted from maps. See {@link CborValueWithUndefined}
 * for the opt-in variant.
 */
export type CborValue =
  | number
  | bigint
  | string
  | Uint8Array
  | boolean
  | null
  | CborFloat
  | CborTag
  | CborValue[]
  | Map<CborKey, CborValue>;

/**
 * {@link CborValue} where CBOR `undefined` (0xf7) may appear anywhere, as JS `undefined`. Only produced and
 * accepted when the caller passes `allowUndefined: true`.
 */
export type CborValueWithUndefined =
  | number
  | bigint
  | string
  | Uint8Array
  | boolean
  | null
  | undefined
  | CborFloat
  | CborTag<CborValueWithUndefined>
  | CborValueWithUndefined[]
  | Map<CborKey, CborValueWithUndefined>;

/**
 * A tagged data item (major type 6). The codec treats tag content as opaque: it neither interprets nor
 * validates tag semantics, and refuses every tag number not listed in `allowTags`.
 *
 * @example
 * ```ts
 * import { CborTag, encodeCanonical } from '@tollgate/core/cbor';
 * encodeCanonical(new CborTag(18, []), { allowTags: [18] }); // d2 80
 * ```
 */
export class CborTag<Content = CborValue> {
  /**
   * @param tag - The tag number, a non-negative safe integer.
   * @param value - The tagged content.
   */
  constructor(
    readonly tag: number,
    readonly value: Content,
  ) {}
}

/**
 * A number that must travel as a CBOR float even when its value is integral. A plain JS `number` with an
 * integral value always encodes as a CBOR integer (`1` and `1.0` are the same JS value), so this wrapper is
 * the only way to produce `f9 3c00`; the decoder returns integral floats wrapped in it for the same reason,
 * which keeps `encodeCanonical(decodeCanonical(bytes))` byte-exact. Needs `allowFloats`.
 *
 * @example
 * ```ts
 * import { CborFloat, encodeCanonical } from '@tollgate/core/cbor';
 * encodeCanonical(new CborFloat(1), { allowFloats: true }); // f9 3c00
 * ```
 */
export class CborFloat {
  /** @param value - The float value; any JS number, including NaN and ±Infinity. */
  constructor(readonly value: number) {}
}
