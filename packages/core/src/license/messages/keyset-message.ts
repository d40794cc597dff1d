import * as v from 'valibot';
import { cborRecord, field, optionalField, type CborRecordSpec } from '../cbor-record';
import { maxKeysetCertificates } from '../protocol';
import { boundedBytesSchema, protoVersionSchema, textSchema, uintSchema } from '../schemas';

/**
 * The body of `GET /v1/keys`: `{0: 1, 1: [epoch certificate envelopes as bstr], 2: revocation_epoch}`.
 * Not a trust anchor: every certificate is checked against the pinned roots (`verifyKeyset`).
 * At most 1,000 certificates of at most 64 KiB each.
 */
export interface Keyset {
  protoVersion: 1;
  certificates: Uint8Array[];
  revocationEpoch: number;
}

/** Layout of {@link Keyset}. */
export const keysetSpec: CborRecordSpec<Keyset> = cborRecord('Keyset', {
  protoVersion: field(0, protoVersionSchema),
  certificates: field(1, v.pipe(v.array(boundedBytesSchema(1, 64 * 1024)), v.maxLength(maxKeysetCertificates))),
  revocationEpoch: field(2, uintSchema),
});

/**
 * The client protocol's error body, keys fixed by the spec: `{0: code, 1?: message, 2?: retry_after}`.
 * It has no `proto_ver` key.
 */
export interface ErrorBody {
  code: number;
  message?: string;
  retryAfter?: number;
}

/** Layout of {@link ErrorBody}. */
export const errorBodySpec: CborRecordSpec<ErrorBody> = cborRecord('ErrorBody', {
  code: field(0, uintSchema),
  message: optionalField(1, textSchema(0, 1024)),
  retryAfter: optionalField(2, uintSchema),
});
