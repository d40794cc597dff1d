import * as v from 'valibot';
import { cborRecord, field, optionalField, recordField, type CborRecordSpec } from '../cbor-record';
import { licenseWireLengths } from '../protocol';
import { bytesSchema, productIdSchema, protoVersionSchema, textSchema, uintSchema } from '../schemas';
import { activationCredentialSpec, clientInfoSpec, type ActivationCredential, type ClientInfo } from './client-info';

/**
 * The map key of the device's proof of possession in every device-signed request.
 *
 * @example
 * ```ts
 * import { decodeCanonical } from '@tollgate/core/cbor';
 * import { requestProofKey } from '@tollgate/core/license';
 * const proof = (decodeCanonical(body) as Map<number, unknown>).get(requestProofKey);
 * ```
 */
export const requestProofKey = 15;

/**
 * `POST /v1/activate` (kind `activation-request`) and, with a license key only, the air-gapped
 * `POST /v1/offline/request` (kind `offline-request`, same layout). The proof at key 15 is checked with
 * the `devicePublicKey` of the request itself: it binds every field in transit to the key that the
 * credential will name.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | protoVersion | uint, 1 |
 * | 1 | productId | text |
 * | 2 | credential | ActivationCredential: `{0: license_key}` or `{1: account_token}` |
 * | 3 | fingerprint | bstr(32) |
 * | 4 | devicePublicKey | bstr(32), Ed25519 |
 * | 5 | deviceKemKey | bstr(32), X25519 |
 * | 6 | nonce | bstr(32), fresh per request |
 * | 7 | clientTime | uint, untrusted |
 * | 8 | clientInfo | ClientInfo |
 * | 9? | deviceAttributes | map text (1–64 bytes) → text (≤ 256 bytes), at most 32 entries |
 * | 15 | proof | bstr(64), see `signDeviceRequest` |
 */
export interface ActivationRequest {
  protoVersion: 1;
  productId: string;
  credential: ActivationCredential;
  fingerprint: Uint8Array;
  devicePublicKey: Uint8Array;
  deviceKemKey: Uint8Array;
  nonce: Uint8Array;
  clientTime: number;
  clientInfo: ClientInfo;
  deviceAttributes?: Map<string, string>;
  proof: Uint8Array;
}

const activationFields = {
  protoVersion: field(0, protoVersionSchema),
  productId: field(1, productIdSchema),
  credential: recordField(2, activationCredentialSpec),
  fingerprint: field(3, bytesSchema(licenseWireLengths.fingerprint)),
  devicePublicKey: field(4, bytesSchema(licenseWireLengths.publicKey)),
  deviceKemKey: field(5, bytesSchema(32)),
  nonce: field(6, bytesSchema(licenseWireLengths.nonce)),
  clientTime: field(7, uintSchema),
  clientInfo: recordField(8, clientInfoSpec),
  deviceAttributes: optionalField(9, v.pipe(v.map(textSchema(1, 64), textSchema(0, 256)), v.maxSize(32))),
  proof: field(requestProofKey, bytesSchema(licenseWireLengths.signature)),
};

/** Layout of {@link ActivationRequest}. */
export const activationRequestSpec: CborRecordSpec<ActivationRequest> = cborRecord('ActivationRequest', activationFields);

/** The air-gapped activation request: the {@link ActivationRequest} layout, license keys only. */
export type OfflineRequest = ActivationRequest;

/** Layout of {@link OfflineRequest}: refuses account tokens, which need the online login flow. */
export const offlineRequestSpec: CborRecordSpec<OfflineRequest> = cborRecord('OfflineRequest', activationFields, (request) =>
  request.credential.licenseKey === undefined ? 'offline activation takes a license key' : undefined,
);
