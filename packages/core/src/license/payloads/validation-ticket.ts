import * as v from 'valibot';
import { cborRecord, field, optionalField, recordField, type CborRecordSpec } from '../cbor-record';
import { licenseWireLengths } from '../protocol';
import { bytesSchema, codeSchema, protoVersionSchema, uintSchema } from '../schemas';
import { wrappedAssetKeysSpec, type WrappedAssetKeys } from '../asset-keys/asset-key-wire';
import { entitlementsSpec, type Entitlements } from './entitlements';

/** Verdict of a validation: `0` ok, `1` needs reactivation, `2` version out of scope (restricted mode). */
export type ValidationVerdict = 0 | 1 | 2;

/** Status of the client's release: `0` active, `1` deprecated, `2` compromised. */
export type ReleaseStatus = 0 | 1 | 2;

/**
 * The signed ticket `POST /v1/validate` returns when the device may keep running (kind
 * `validation-ticket`, epoch-signed, product-bound). It renews the credential's clock.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | protoVersion | uint, 1 |
 * | 1 | licenseId | bstr(16) |
 * | 2 | machineId | bstr(16) |
 * | 3 | nonceEcho | bstr(32), the validate request's nonce |
 * | 4 | serverNonce | bstr(32), fresh per ticket |
 * | 5 | serverTime | uint |
 * | 6 | refreshAfter | uint |
 * | 7 | graceSeconds | uint |
 * | 8? | expiresAt | uint; absent = no expiry |
 * | 9 | revocationEpoch | uint |
 * | 10 | verdict | uint 0–2 |
 * | 11 | securityFloor | uint |
 * | 12? | entitlements | Entitlements, when they changed |
 * | 13? | releaseStatus | uint 0–2 |
 * | 14? | refreshNow | true; absent = false |
 * | 15? | assetKeys | WrappedAssetKeys: the keys of the entitled features for the device's release, wrapped to its KEM key |
 * | 16? | telemetryWindow | uint: present only when the license's policy permits telemetry (`telemetry: "t1"`); midnight UTC of the server's day |
 *
 * `telemetryWindow` is how a device learns the tier gate before it sends anything: without it the device
 * collects and attaches no telemetry. Its value is the server-supplied window marker a block passes through
 * as `window_start`; the server keeps one block per machine and UTC day, so a device sends the usage of a
 * window once a later ticket names a later day.
 */
export interface ValidationTicket {
  protoVersion: 1;
  licenseId: Uint8Array;
  machineId: Uint8Array;
  nonceEcho: Uint8Array;
  serverNonce: Uint8Array;
  serverTime: number;
  refreshAfter: number;
  graceSeconds: number;
  expiresAt?: number;
  revocationEpoch: number;
  verdict: ValidationVerdict;
  securityFloor: number;
  entitlements?: Entitlements;
  releaseStatus?: ReleaseStatus;
  refreshNow?: true;
  assetKeys?: WrappedAssetKeys;
  telemetryWindow?: number;
}

/** Layout of {@link ValidationTicket}. */
export const validationTicketSpec: CborRecordSpec<ValidationTicket> = cborRecord('ValidationTicket', {
  protoVersion: field(0, protoVersionSchema),
  licenseId: field(1, bytesSchema(licenseWireLengths.licenseId)),
  machineId: field(2, bytesSchema(licenseWireLengths.machineId)),
  nonceEcho: field(3, bytesSchema(licenseWireLengths.nonce)),
  serverNonce: field(4, bytesSchema(licenseWireLengths.nonce)),
  serverTime: field(5, uintSchema),
  refreshAfter: field(6, uintSchema),
  graceSeconds: field(7, uintSchema),
  expiresAt: optionalField(8, uintSchema),
  revocationEpoch: field(9, uintSchema),
  verdict: field(10, codeSchema([0, 1, 2] as const, 'verdict')),
  securityFloor: field(11, uintSchema),
  entitlements: recordField(12, entitlementsSpec, true),
  releaseStatus: optionalField(13, codeSchema([0, 1, 2] as const, 'release status')),
  refreshNow: optionalField(14, v.literal(true, 'refreshNow is true or absent')),
  assetKeys: recordField(15, wrappedAssetKeysSpec, true),
  telemetryWindow: optionalField(16, uintSchema),
});
