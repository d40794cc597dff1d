import { cborRecord, field, optionalField, recordField, type CborRecordSpec } from '../cbor-record';
import { licenseWireLengths } from '../protocol';
import { boundedBytesSchema, bytesSchema, codeSchema, protoVersionSchema, uintSchema } from '../schemas';
import { wrappedAssetKeysSpec, type WrappedAssetKeys } from '../asset-keys/asset-key-wire';
import { entitlementsSpec, type Entitlements } from './entitlements';

/** How a credential may be used: `0` offline-capable (grace applies), `1` online-enforced. */
export type CredentialMode = 0 | 1;

/**
 * The signed machine credential `POST /v1/activate` returns (kind `machine-credential`, signed by an
 * epoch key, bound to the product).
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | protoVersion | uint, 1 |
 * | 1 | licenseId | bstr(16) |
 * | 2 | machineId | bstr(16), server-assigned |
 * | 3 | fingerprint | bstr(32), the device fingerprint it is bound to |
 * | 4 | devicePublicKey | bstr(32), Ed25519 key that signs the device's later requests |
 * | 5 | nonceEcho | bstr(32), the activation request's nonce |
 * | 6 | issuedAt | uint, server time |
 * | 7 | refreshAfter | uint, validate again after this time |
 * | 8 | graceSeconds | uint, offline tolerance after refreshAfter |
 * | 9? | expiresAt | uint; absent = the license does not expire |
 * | 10 | entitlements | Entitlements |
 * | 11 | revocationEpoch | uint, the server's revocation epoch at issuance |
 * | 12 | securityFloor | uint |
 * | 13 | mode | uint, 0 offline-capable, 1 online-enforced |
 * | 14? | sealedSecret | bstr(1–256), reserved: credential secret sealed to the device KEM key |
 * | 15? | assetKeys | WrappedAssetKeys: the keys of the entitled features for the device's release, wrapped to its KEM key |
 */
export interface MachineCredential {
  protoVersion: 1;
  licenseId: Uint8Array;
  machineId: Uint8Array;
  fingerprint: Uint8Array;
  devicePublicKey: Uint8Array;
  nonceEcho: Uint8Array;
  issuedAt: number;
  refreshAfter: number;
  graceSeconds: number;
  expiresAt?: number;
  entitlements: Entitlements;
  revocationEpoch: number;
  securityFloor: number;
  mode: CredentialMode;
  sealedSecret?: Uint8Array;
  assetKeys?: WrappedAssetKeys;
}

/** Layout of {@link MachineCredential}. */
export const machineCredentialSpec: CborRecordSpec<MachineCredential> = cborRecord('MachineCredential', {
  protoVersion: field(0, protoVersionSchema),
  licenseId: field(1, bytesSchema(licenseWireLengths.licenseId)),
  machineId: field(2, bytesSchema(licenseWireLengths.machineId)),
  fingerprint: field(3, bytesSchema(licenseWireLengths.fingerprint)),
  devicePublicKey: field(4, bytesSchema(licenseWireLengths.publicKey)),
  nonceEcho: field(5, bytesSchema(licenseWireLengths.nonce)),
  issuedAt: field(6, uintSchema),
  refreshAfter: field(7, uintSchema),
  graceSeconds: field(8, uintSchema),
  expiresAt: optionalField(9, uintSchema),
  entitlements: recordField(10, entitlementsSpec),
  revocationEpoch: field(11, uintSchema),
  securityFloor: field(12, uintSchema),
  mode: field(13, codeSchema([0, 1] as const, 'credential mode')),
  sealedSecret: optionalField(14, boundedBytesSchema(1, 256)),
  assetKeys: recordField(15, wrappedAssetKeysSpec, true),
});
