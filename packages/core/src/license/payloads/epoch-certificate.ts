import { cborRecord, field, optionalField, type CborRecordSpec } from '../cbor-record';
import { licenseWireLengths } from '../protocol';
import { bytesSchema, productIdSchema, protoVersionSchema, uintSchema } from '../schemas';

/**
 * What an epoch certificate says (the payload the root key signs): this 8-byte epoch id holds this
 * Ed25519 public key, valid from `notBefore` until just before `notAfter`, optionally for one product
 * only, issued by the root whose SHA-256 is `rootKeyDigest`.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | protoVersion | uint, 1 |
 * | 1 | epochId | bstr(8) |
 * | 2 | publicKey | bstr(32), Ed25519 |
 * | 3 | notBefore | uint, unix seconds |
 * | 4 | notAfter | uint, unix seconds, exclusive, > notBefore |
 * | 5? | productScope | text, product id; absent = every product |
 * | 6 | rootKeyDigest | bstr(32), SHA-256 of the issuing root public key |
 */
export interface EpochCertificate {
  protoVersion: 1;
  epochId: Uint8Array;
  publicKey: Uint8Array;
  notBefore: number;
  notAfter: number;
  productScope?: string;
  rootKeyDigest: Uint8Array;
}

const validityRule = (value: { notBefore: number; notAfter: number }) =>
  value.notAfter > value.notBefore ? undefined : 'notAfter must be later than notBefore';

/** Layout of {@link EpochCertificate}. */
export const epochCertificateSpec: CborRecordSpec<EpochCertificate> = cborRecord(
  'EpochCertificate',
  {
    protoVersion: field(0, protoVersionSchema),
    epochId: field(1, bytesSchema(licenseWireLengths.epochId)),
    publicKey: field(2, bytesSchema(licenseWireLengths.publicKey)),
    notBefore: field(3, uintSchema),
    notAfter: field(4, uintSchema),
    productScope: optionalField(5, productIdSchema),
    rootKeyDigest: field(6, bytesSchema(licenseWireLengths.rootKeyDigest)),
  },
  validityRule,
);

/**
 * What the server asks the root to certify (an unsigned message, exported by `epoch create`): the
 * certificate without `rootKeyDigest`, which the root adds when it signs. Keys 0–5 as in
 * {@link EpochCertificate}.
 */
export interface EpochCertificateRequest {
  protoVersion: 1;
  epochId: Uint8Array;
  publicKey: Uint8Array;
  notBefore: number;
  notAfter: number;
  productScope?: string;
}

/** Layout of {@link EpochCertificateRequest}. */
export const epochCertificateRequestSpec: CborRecordSpec<EpochCertificateRequest> = cborRecord(
  'EpochCertificateRequest',
  {
    protoVersion: field(0, protoVersionSchema),
    epochId: field(1, bytesSchema(licenseWireLengths.epochId)),
    publicKey: field(2, bytesSchema(licenseWireLengths.publicKey)),
    notBefore: field(3, uintSchema),
    notAfter: field(4, uintSchema),
    productScope: optionalField(5, productIdSchema),
  },
  validityRule,
);
