import { createNobleEd25519Signer, type Signer } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import type { MachineCredential } from '@tollgate/core/license';
import { x25519 } from '@noble/curves/ed25519.js';
import type { DeviceSession } from '../device-calls';
import type { VerifiedOfflineAnswer } from '../offline-relay';
import type { RevocationFollowerState } from '../revocation-follower';
import type { StoredLicense } from './stored-license';

/** A device's key pairs: Ed25519 (signs its requests) and X25519 (asset keys are wrapped to it). */
export interface DeviceKeys {
  readonly deviceSeed: Uint8Array;
  readonly kemPrivateKey: Uint8Array;
  readonly signer: Signer;
  readonly kemPublicKey: Uint8Array;
}

/**
 * Fresh device keys from the platform CSPRNG (a new activation gets new keys: a copied record of an old
 * activation is useless once the seat moves on), or the keys of a stored record.
 *
 * @param stored - The record whose keys to rebuild; fresh keys when absent.
 * @returns The keys.
 * @example
 * ```ts
 * const keys = deviceKeys();
 * await activate(device, { ...input, deviceKey: keys.signer, kemPublicKey: keys.kemPublicKey });
 * ```
 */
export function deviceKeys(stored?: Pick<StoredLicense, 'deviceSeed' | 'kemPrivateKey'>): DeviceKeys {
  const deviceSeed = stored?.deviceSeed ?? randomBytes(32);
  const kemPrivateKey = stored?.kemPrivateKey ?? x25519.utils.randomSecretKey();
  return { deviceSeed, kemPrivateKey, signer: createNobleEd25519Signer({ privateKey: deviceSeed, kid: 'device' }), kemPublicKey: x25519.getPublicKey(kemPrivateKey) };
}

/** What every request after activation carries, from the stored keys and the verified credential. */
export function sessionOf(productId: string, stored: Pick<StoredLicense, 'deviceSeed' | 'kemPrivateKey'>, credential: MachineCredential): DeviceSession {
  return { productId, seat: credential, deviceKey: deviceKeys(stored).signer };
}

const noRevocations: RevocationFollowerState = { revocationEpoch: 0, revokedEpochIds: [] };

/**
 * The record of a freshly activated device (online activation or imported offline answer): keys,
 * credential, what it has seen of revocations and security floors, and the clock mark (the later of
 * the server's time in the answer and the device's).
 *
 * @example
 * ```ts
 * const stored = activatedRecord(productId, keys, activation.envelope, activation.credential, follower.state(), now);
 * ```
 */
export function activatedRecord(
  productId: string,
  keys: Pick<DeviceKeys, 'deviceSeed' | 'kemPrivateKey'>,
  envelope: Uint8Array,
  credential: MachineCredential,
  revocation: RevocationFollowerState,
  nowSeconds: number,
  serverTime = credential.issuedAt,
): StoredLicense {
  return {
    productId,
    deviceSeed: keys.deviceSeed,
    kemPrivateKey: keys.kemPrivateKey,
    credential: envelope,
    revocation,
    clockMark: Math.max(serverTime, nowSeconds),
    knownRevocationEpoch: credential.revocationEpoch,
    knownSecurityFloor: credential.securityFloor,
    consentVersion: 0,
  };
}

/**
 * The record kept while an offline request travels: the new keys and the request's nonce (the answer
 * can only be imported with them), and no credential yet.
 *
 * @example
 * ```ts
 * await storage.save(encodeStoredLicense(pendingOfflineRecord(productId, keys, nonce, now)));
 * ```
 */
export function pendingOfflineRecord(productId: string, keys: Pick<DeviceKeys, 'deviceSeed' | 'kemPrivateKey'>, nonce: Uint8Array, nowSeconds: number): StoredLicense {
  return { productId, deviceSeed: keys.deviceSeed, kemPrivateKey: keys.kemPrivateKey, pendingOfflineNonce: nonce, revocation: noRevocations, clockMark: nowSeconds, knownRevocationEpoch: 0, knownSecurityFloor: 0, consentVersion: 0 };
}

/**
 * The record after an offline answer verified: the pending keys, the credential and the certificates it
 * verifies with until the server is reached.
 *
 * @example
 * ```ts
 * const stored = importedOfflineRecord(pending, verifyOfflineAnswer(bytes, check), now);
 * ```
 */
export function importedOfflineRecord(pending: StoredLicense, verified: VerifiedOfflineAnswer, nowSeconds: number): StoredLicense {
  return {
    ...activatedRecord(pending.productId, pending, verified.answer.credential, verified.credential, noRevocations, nowSeconds, verified.answer.serverTime),
    certificates: verified.answer.certificates,
    consentVersion: pending.consentVersion,
  };
}

/**
 * What is left of a record after a kill order when storage cannot delete it: the device keys and the
 * counters, but no credential or ticket, so the next start finds no license.
 *
 * @example
 * ```ts
 * await storage.save(encodeStoredLicense(tombstoneRecord(stored)));
 * ```
 */
export function tombstoneRecord(stored: StoredLicense): StoredLicense {
  const { productId, deviceSeed, kemPrivateKey, revocation, clockMark, knownRevocationEpoch, knownSecurityFloor } = stored;
  return { productId, deviceSeed, kemPrivateKey, revocation, clockMark, knownRevocationEpoch, knownSecurityFloor, consentVersion: 0 };
}
