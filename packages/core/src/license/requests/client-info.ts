import { cborRecord, field, optionalField, type CborRecordSpec } from '../cbor-record';
import { licenseWireLengths } from '../protocol';
import { bytesSchema, textSchema } from '../schemas';

/**
 * What the client says about itself (untrusted, for release gating and support).
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | appVersion | text, 1–64 bytes |
 * | 1 | sdkVersion | text, 1–64 bytes |
 * | 2 | os | text, 1–32 bytes (`linux`, `darwin`, `win32`, `web`) |
 * | 3 | arch | text, 1–32 bytes |
 * | 4? | buildFingerprint | bstr(32) |
 * | 5? | releaseId | bstr(16) |
 */
export interface ClientInfo {
  appVersion: string;
  sdkVersion: string;
  os: string;
  arch: string;
  buildFingerprint?: Uint8Array;
  releaseId?: Uint8Array;
}

/** Layout of {@link ClientInfo}. */
export const clientInfoSpec: CborRecordSpec<ClientInfo> = cborRecord('ClientInfo', {
  appVersion: field(0, textSchema(1, 64)),
  sdkVersion: field(1, textSchema(1, 64)),
  os: field(2, textSchema(1, 32)),
  arch: field(3, textSchema(1, 32)),
  buildFingerprint: optionalField(4, bytesSchema(32)),
  releaseId: optionalField(5, bytesSchema(licenseWireLengths.licenseId)),
});

/**
 * How the device proves it may activate: exactly one of a license key (key 0) or an account access
 * token from `POST /v1/account/login` (key 1).
 */
export interface ActivationCredential {
  licenseKey?: string;
  accountToken?: Uint8Array;
}

/** Layout of {@link ActivationCredential}. */
export const activationCredentialSpec: CborRecordSpec<ActivationCredential> = cborRecord(
  'ActivationCredential',
  {
    licenseKey: optionalField(0, textSchema(1, 128)),
    accountToken: optionalField(1, bytesSchema(licenseWireLengths.token)),
  },
  (credential) => ((credential.licenseKey === undefined) === (credential.accountToken === undefined) ? 'exactly one of licenseKey or accountToken' : undefined),
);
