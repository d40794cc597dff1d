import { cborRecord, field, optionalField, type CborRecordSpec } from '../cbor-record';
import { licenseWireLengths } from '../protocol';
import { bytesSchema, positiveUintSchema, protoVersionSchema, sortedTextListSchema, textSchema, uintSchema } from '../schemas';

/** Most features an offline key lists (the catalog's member bound). */
export const maxOfflineKeyFeatures = 1000;

/**
 * An offline license key (kind `offline-key`, epoch-signed, product-bound): what an operator hands an
 * air-gapped customer through `POST /v1/admin/licenses/{id}/offline-key`. It grants the license's
 * entitlements to one release, optionally to one device, without the server ever seeing the device.
 * Clients accept it only for `releaseId` (the build's registered release) and, when `boundFingerprint`
 * is present, only on that device; `maxSeats` caps how many devices of an air-gapped site may import it.
 *
 * | key | field | CBOR |
 * |---|---|---|
 * | 0 | protoVersion | uint, 1 |
 * | 1 | bundleId | bstr(16), unique per minted key |
 * | 2 | licenseId | bstr(16) |
 * | 3 | releaseId | bstr(16), the release it unlocks |
 * | 4 | issuedAt | uint, server time |
 * | 5? | expiresAt | uint, the license's expiry; absent = it does not expire |
 * | 6 | maxSeats | uint ≥ 1 |
 * | 7? | boundFingerprint | bstr(32), the only device it works on |
 * | 8? | tier | text, 1–64 bytes |
 * | 9 | features | array of text (1–128 bytes), strictly ascending, at most 1,000 |
 * | 10 | entitlementDigest | bstr(32), the entitlement snapshot digest |
 * | 11 | revocationEpoch | uint, the server's revocation epoch at issuance |
 * | 12? | versionMin | text, SemVer, inclusive |
 * | 13? | versionMaxExclusive | text, SemVer, exclusive |
 */
export interface OfflineKey {
  protoVersion: 1;
  bundleId: Uint8Array;
  licenseId: Uint8Array;
  releaseId: Uint8Array;
  issuedAt: number;
  expiresAt?: number;
  maxSeats: number;
  boundFingerprint?: Uint8Array;
  tier?: string;
  features: string[];
  entitlementDigest: Uint8Array;
  revocationEpoch: number;
  versionMin?: string;
  versionMaxExclusive?: string;
}

const versionSchema = textSchema(5, 128);

/** Layout of {@link OfflineKey}. */
export const offlineKeySpec: CborRecordSpec<OfflineKey> = cborRecord(
  'OfflineKey',
  {
    protoVersion: field(0, protoVersionSchema),
    bundleId: field(1, bytesSchema(16)),
    licenseId: field(2, bytesSchema(licenseWireLengths.licenseId)),
    releaseId: field(3, bytesSchema(16)),
    issuedAt: field(4, uintSchema),
    expiresAt: optionalField(5, uintSchema),
    maxSeats: field(6, positiveUintSchema),
    boundFingerprint: optionalField(7, bytesSchema(licenseWireLengths.fingerprint)),
    tier: optionalField(8, textSchema(1, 64)),
    features: field(9, sortedTextListSchema(textSchema(1, 128), maxOfflineKeyFeatures)),
    entitlementDigest: field(10, bytesSchema(32)),
    revocationEpoch: field(11, uintSchema),
    versionMin: optionalField(12, versionSchema),
    versionMaxExclusive: optionalField(13, versionSchema),
  },
  (key) => (key.expiresAt === undefined || key.expiresAt > key.issuedAt ? undefined : 'expiresAt must be later than issuedAt'),
);
