import { createNodeEd25519Signer, verifyEd25519Node } from '../crypto/node-ed25519-signer';
import type { LicenseCrypto } from '../license/service/license-crypto';

/**
 * The license service's Ed25519 on Node's native crypto (OpenSSL), as `tollgate-license` runs it: pass it
 * as `crypto` to `createLicenseService` (or to `createLicenseTrust`, `startAuditAnchorJob`).
 *
 * @example
 * ```ts
 * import { createLicenseService } from '@tollgate/core';
 * import { nodeLicenseCrypto } from '@tollgate/core/node';
 * const service = createLicenseService({ sql, clock, masterKey, pinnedRoots, logger, crypto: nodeLicenseCrypto });
 * ```
 */
export const nodeLicenseCrypto: LicenseCrypto = Object.freeze({ verify: verifyEd25519Node, createSigner: createNodeEd25519Signer });
