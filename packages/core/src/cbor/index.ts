export { type CborKey, type CborValue, type CborValueWithUndefined, CborTag, CborFloat } from './values';
export { encodeCanonical, type EncodeOptions } from './encode';
export { decodeCanonical, type DecodeOptions } from './decode';
export { type DecodeLimits, clientDecodeLimits, bulkDecodeLimits, maxCborDepth } from './limits';
export { CborDecodeError, CborEncodeError, type CborDecodeReason, type CborEncodeReason } from './errors';
export {
  cborMap,
  expectCborMap,
  readCborField,
  readOptionalCborField,
  type CborFieldKind,
  type CborFieldKinds,
} from './fields';
