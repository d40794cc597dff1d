import * as v from 'valibot';
import { cborRecord, field, type CborRecordSpec } from '../cbor-record';
import { artifactDecodeLimits, licenseWireLengths } from '../protocol';
import { boundedBytesSchema, bytesSchema, protoVersionSchema, uintSchema } from '../schemas';

/**
 * The signed answer to an air-gapped activation (`POST /v1/offline/request`; kind `offline-response`,
 * epoch-signed, product-bound). It carries the credential and the certificates needed to verify it
 * without network access. `validUntil` is `serverTime` + 7 days: the device must import it before then.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | protoVersion | uint, 1 |
 * | 1 | nonceEcho | bstr(32), the offline request's nonce |
 * | 2 | credential | bstr, a `machine-credential` envelope |
 * | 3 | certificates | array of 1–8 bstr, `epoch-certificate` envelopes |
 * | 4 | serverTime | uint |
 * | 5 | validUntil | uint, > serverTime |
 */
export interface OfflineResponse {
  protoVersion: 1;
  nonceEcho: Uint8Array;
  credential: Uint8Array;
  certificates: Uint8Array[];
  serverTime: number;
  validUntil: number;
}

const envelopeBytes = boundedBytesSchema(1, artifactDecodeLimits.maxInputBytes);

/** Layout of {@link OfflineResponse}. */
export const offlineResponseSpec: CborRecordSpec<OfflineResponse> = cborRecord(
  'OfflineResponse',
  {
    protoVersion: field(0, protoVersionSchema),
    nonceEcho: field(1, bytesSchema(licenseWireLengths.nonce)),
    credential: field(2, envelopeBytes),
    certificates: field(3, v.pipe(v.array(envelopeBytes), v.minLength(1), v.maxLength(8))),
    serverTime: field(4, uintSchema),
    validUntil: field(5, uintSchema),
  },
  (response) => (response.validUntil > response.serverTime ? undefined : 'validUntil must be later than serverTime'),
);
