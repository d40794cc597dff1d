import { cborRecord, field, recordField, type CborRecordSpec } from '../cbor-record';
import { licenseWireLengths } from '../protocol';
import { bytesSchema, productIdSchema, protoVersionSchema, uintSchema } from '../schemas';
import { requestProofKey } from './activation-request';
import { clientInfoSpec, type ClientInfo } from './client-info';
import { telemetryBlockSpec, type TelemetryBlock } from './telemetry';

/**
 * `POST /v1/validate` (kind `validate-request`), signed with the device key registered at activation.
 * The answer is a `validation-ticket` or a `kill-order` echoing `nonce`.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | protoVersion | uint, 1 |
 * | 1 | productId | text |
 * | 2 | licenseId | bstr(16), routing key |
 * | 3 | machineId | bstr(16) |
 * | 4 | fingerprint | bstr(32), current device fingerprint |
 * | 5 | nonce | bstr(32) |
 * | 6 | clientTime | uint, untrusted |
 * | 7 | knownRevocationEpoch | uint, highest the client has seen |
 * | 8 | knownSecurityFloor | uint, highest the client has seen |
 * | 9 | clientInfo | ClientInfo |
 * | 10 | (reserved for an integrity summary) | |
 * | 11? | telemetry | TelemetryBlock, ≤ 512 bytes |
 * | 15 | proof | bstr(64) |
 */
export interface ValidateRequest {
  protoVersion: 1;
  productId: string;
  licenseId: Uint8Array;
  machineId: Uint8Array;
  fingerprint: Uint8Array;
  nonce: Uint8Array;
  clientTime: number;
  knownRevocationEpoch: number;
  knownSecurityFloor: number;
  clientInfo: ClientInfo;
  telemetry?: TelemetryBlock;
  proof: Uint8Array;
}

/** Layout of {@link ValidateRequest}. */
export const validateRequestSpec: CborRecordSpec<ValidateRequest> = cborRecord('ValidateRequest', {
  protoVersion: field(0, protoVersionSchema),
  productId: field(1, productIdSchema),
  licenseId: field(2, bytesSchema(licenseWireLengths.licenseId)),
  machineId: field(3, bytesSchema(licenseWireLengths.machineId)),
  fingerprint: field(4, bytesSchema(licenseWireLengths.fingerprint)),
  nonce: field(5, bytesSchema(licenseWireLengths.nonce)),
  clientTime: field(6, uintSchema),
  knownRevocationEpoch: field(7, uintSchema),
  knownSecurityFloor: field(8, uintSchema),
  clientInfo: recordField(9, clientInfoSpec),
  telemetry: recordField(11, telemetryBlockSpec, true),
  proof: field(requestProofKey, bytesSchema(licenseWireLengths.signature)),
});

/**
 * `POST /v1/heartbeat` (kind `heartbeat-request`) and `POST /v1/deactivate` (kind
 * `deactivate-request`): the same layout under two domains, so one can never be replayed as the other.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | protoVersion | uint, 1 |
 * | 1 | productId | text |
 * | 2 | licenseId | bstr(16) |
 * | 3 | machineId | bstr(16) |
 * | 4 | nonce | bstr(32) |
 * | 5 | clientTime | uint |
 * | 15 | proof | bstr(64) |
 */
export interface SessionRequest {
  protoVersion: 1;
  productId: string;
  licenseId: Uint8Array;
  machineId: Uint8Array;
  nonce: Uint8Array;
  clientTime: number;
  proof: Uint8Array;
}

const sessionFields = {
  protoVersion: field(0, protoVersionSchema),
  productId: field(1, productIdSchema),
  licenseId: field(2, bytesSchema(licenseWireLengths.licenseId)),
  machineId: field(3, bytesSchema(licenseWireLengths.machineId)),
  nonce: field(4, bytesSchema(licenseWireLengths.nonce)),
  clientTime: field(5, uintSchema),
  proof: field(requestProofKey, bytesSchema(licenseWireLengths.signature)),
};

/** Layout of the heartbeat request. */
export const heartbeatRequestSpec: CborRecordSpec<SessionRequest> = cborRecord('HeartbeatRequest', sessionFields);

/** Layout of the deactivate request. */
export const deactivateRequestSpec: CborRecordSpec<SessionRequest> = cborRecord('DeactivateRequest', sessionFields);

