import { createNobleEd25519Signer, verifyEd25519, type Ed25519SignerOptions } from '../../crypto/ed25519';
import type { Signer } from '../../crypto/signer';

/**
 * The Ed25519 implementation the license service signs and verifies with. The default,
 * {@link nobleLicenseCrypto}, runs anywhere; on Node pass `nodeLicenseCrypto` from `@tollgate/core/node`
 * (OpenSSL: the same answers for honest signatures, several times faster).
 *
 * @example
 * ```ts
 * import type { LicenseCrypto } from '@tollgate/core';
 * import { nobleLicenseCrypto } from '@tollgate/core/license';
 * const crypto: LicenseCrypto = nobleLicenseCrypto;
 * ```
 */
export interface LicenseCrypto {
  /** Checks an Ed25519 signature; never throws. */
  readonly verify: (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array) => boolean;
  /** Builds a signer over a 32-byte seed (epoch signers). */
  readonly createSigner: (options: Ed25519SignerOptions) => Signer;
}

/**
 * The platform-neutral Ed25519 of the license service (`@noble/curves`).
 *
 * @example
 * ```ts
 * import { createLicenseTrust, nobleLicenseCrypto } from '@tollgate/core/license';
 * const trust = createLicenseTrust({ sql, masterKey, pinnedRoots, clock, logger, refreshIntervalMs: 30_000, crypto: nobleLicenseCrypto });
 * ```
 */
export const nobleLicenseCrypto: LicenseCrypto = Object.freeze({ verify: verifyEd25519, createSigner: createNobleEd25519Signer });
