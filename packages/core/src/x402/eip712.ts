import { keccak_256 } from '@noble/hashes/sha3.js';
import { hexDecode } from '../crypto/hex';
import { utf8Encode } from '../crypto/utf8';

/**
 * A minimal EIP-712 encoder for the flat structs Tollgate signs and verifies (EIP-3009
 * `TransferWithAuthorization`, `TollgateOffer`, `TollgateReceipt`, the x402 `Offer` and `Receipt`).
 * It exists for speed: viem's `hashTypedData` re-validates and re-encodes the types and the domain on
 * every call, while here the type hash and the domain separator are computed once and a digest is one
 * `keccak256` over a preallocated buffer. Tests pin every digest to viem's `hashTypedData`.
 */

/** The field types these structs use. */
export type Eip712FieldType = 'string' | 'address' | 'uint256' | 'bytes32';

/** One struct member. */
export interface Eip712Field {
  readonly name: string;
  readonly type: Eip712FieldType;
}

/** An EIP-712 domain; absent members are left out of `EIP712Domain`, as viem does. */
export interface Eip712Domain {
  name?: string;
  version?: string;
  chainId?: number | bigint;
  verifyingContract?: string;
}

/** Values a struct member accepts: strings for `string`/`address`/`bytes32`, integers for `uint256`. */
export type Eip712Value = string | number | bigint;

const UINT256_MAX = (1n << 256n) - 1n;

function keccakText(text: string): Uint8Array {
  return keccak_256(utf8Encode(text));
}

function strip0x(hex: string, what: string): string {
  if (typeof hex !== 'string' || !hex.startsWith('0x')) throw new TypeError(`${what} must be 0x hex.`);
  return hex.slice(2);
}

/** Writes one encoded member (32 bytes) at `offset`. */
function encodeInto(out: Uint8Array, offset: number, field: Eip712Field, value: Eip712Value): void {
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string') throw new TypeError(`${field.name} must be a string.`);
      out.set(keccakText(value), offset);
      return;
    case 'address': {
      const bytes = hexDecode(strip0x(String(value), field.name));
      if (bytes.length !== 20) throw new TypeError(`${field.name} must be a 20-byte address.`);
      out.set(bytes, offset + 12);
      return;
    }
    case 'bytes32': {
      const bytes = hexDecode(strip0x(String(value), field.name));
      if (bytes.length !== 32) throw new TypeError(`${field.name} must be 32 bytes.`);
      out.set(bytes, offset);
      return;
    }
    case 'uint256': {
      let integer: bigint;
      if (typeof value === 'bigint') integer = value;
      else if (typeof value === 'number' && Number.isSafeInteger(value)) integer = BigInt(value);
      else if (typeof value === 'string' && /^(0|[1-9][0-9]*)$/.test(value)) integer = BigInt(value);
      else throw new TypeError(`${field.name} must be a non-negative integer.`);
      if (integer < 0n || integer > UINT256_MAX) throw new RangeError(`${field.name} does not fit in uint256.`);
      for (let index = 31; index >= 0 && integer > 0n; index--) {
        out[offset + index] = Number(integer & 0xffn);
        integer >>= 8n;
      }
      return;
    }
  }
}

/** A struct type with its type hash computed once. */
export interface Eip712Struct {
  /** `Name(type1 name1,…)`. */
  readonly encodedType: string;
  readonly typeHash: Uint8Array;
  readonly fields: readonly Eip712Field[];
  /** `hashStruct(message)`: keccak256(typeHash ‖ encoded members). */
  hash(message: Readonly<Record<string, Eip712Value>>): Uint8Array;
}

/**
 * Defines a flat struct type (members of the four basic types only).
 *
 * @param primaryType - The struct's name.
 * @param fields - Its members in declaration order.
 * @returns The struct with a `hash` function.
 */
export function defineEip712Struct(primaryType: string, fields: readonly Eip712Field[]): Eip712Struct {
  const encodedType = `${primaryType}(${fields.map((field) => `${field.type} ${field.name}`).join(',')})`;
  const typeHash = keccakText(encodedType);
  return {
    encodedType,
    typeHash,
    fields,
    hash(message) {
      const buffer = new Uint8Array(32 * (fields.length + 1));
      buffer.set(typeHash, 0);
      fields.forEach((field, index) => {
        const value = message[field.name];
        if (value === undefined) throw new TypeError(`${primaryType}.${field.name} is missing.`);
        encodeInto(buffer, 32 * (index + 1), field, value);
      });
      return keccak_256(buffer);
    },
  };
}

/**
 * The domain separator `hashStruct(EIP712Domain)` of a domain.
 *
 * @param domain - Name, version, chain id and verifying contract; absent members are omitted.
 * @returns The 32-byte separator.
 */
export function eip712DomainSeparator(domain: Eip712Domain): Uint8Array {
  // EIP-712 fixes the member order; members the domain does not use are left out.
  const members: [Eip712Field, Eip712Value | undefined][] = [
    [{ name: 'name', type: 'string' }, domain.name],
    [{ name: 'version', type: 'string' }, domain.version],
    [{ name: 'chainId', type: 'uint256' }, domain.chainId],
    [{ name: 'verifyingContract', type: 'address' }, domain.verifyingContract],
  ];
  const present = members.filter((member): member is [Eip712Field, Eip712Value] => member[1] !== undefined);
  return defineEip712Struct('EIP712Domain', present.map(([field]) => field)).hash(Object.fromEntries(present.map(([field, value]) => [field.name, value])));
}

/**
 * The EIP-712 signing digest `keccak256(0x1901 ‖ domainSeparator ‖ structHash)`.
 *
 * @param domainSeparator - From {@link eip712DomainSeparator} (cache it).
 * @param structHash - From {@link Eip712Struct.hash}.
 * @returns The 32-byte digest that is signed.
 */
export function eip712Digest(domainSeparator: Uint8Array, structHash: Uint8Array): Uint8Array {
  const buffer = new Uint8Array(66);
  buffer[0] = 0x19;
  buffer[1] = 0x01;
  buffer.set(domainSeparator, 2);
  buffer.set(structHash, 34);
  return keccak_256(buffer);
}

/**
 * The viem/EIP-712 `types` object of a struct, for wallets and for `signTypedData` fallbacks.
 *
 * @param primaryType - The struct's name.
 * @param struct - The struct.
 * @returns `{ [primaryType]: [{ name, type }, …] }`.
 */
export function eip712Types(primaryType: string, struct: Eip712Struct): Record<string, { name: string; type: string }[]> {
  return { [primaryType]: struct.fields.map((field) => ({ name: field.name, type: field.type })) };
}
