import { join } from 'node:path';
import { coreMigrations, licenseMigrations, systemClock, unixSeconds, type Clock, type SqlClient } from '@tollgate/core';
import {
  activateEpochCertificate,
  addCarryOverCertificate,
  isArtifactError,
  TrustChainError,
  createPendingEpoch,
  createRootSigner,
  decodeEpochCertificateRequest,
  productIdPattern,
  signEpochCertificate,
  type EpochCertificateRequest,
  type StoredEpoch,
  type VerifiedEpoch,
} from '@tollgate/core/license';
import { createNodeEd25519Signer, openDatabase, verifyEd25519Node, type OpenDatabase } from '@tollgate/core/node';
import { licenseDatabaseDir, licenseStateDir, type LicenseConfig } from '../config';
import { CeremonyError } from './ceremony-error';
import { acquireEmbeddedDatabaseLock } from './embedded-lock';
import { readOrCreateMasterKeyFile, readOrCreateRootKeyFile, readRootKeyFile } from './key-files';

type StateConfig = Pick<LicenseConfig, 'dataDir' | 'production' | 'masterKey' | 'rootPublicKeys'>;

/**
 * Where dev mode keeps its generated keys.
 *
 * @example
 * ```ts
 * import { devKeyPaths } from '@tollgate/license-server';
 * devKeyPaths({ dataDir: '.tollgate' }).root; // '.tollgate/license/dev-root.key'
 * ```
 */
export function devKeyPaths(config: Pick<LicenseConfig, 'dataDir'>): { masterKey: string; root: string; lock: string } {
  const dir = licenseStateDir(config);
  return { masterKey: join(dir, 'master.key'), root: join(dir, 'dev-root.key'), lock: join(dir, 'db.lock') };
}

/**
 * Opens the license database with the core and license migrations applied. The embedded database is
 * locked for the lifetime of the handle (see `acquireEmbeddedDatabaseLock`).
 *
 * @param config - Database location.
 * @returns The open database; `close()` also releases the lock.
 *
 * @example
 * ```ts
 * import { openLicenseDatabase, loadLicenseConfig } from '@tollgate/license-server';
 * const database = await openLicenseDatabase(loadLicenseConfig(process.env));
 * try { await work(database.sql); } finally { await database.close(); }
 * ```
 */
export async function openLicenseDatabase(config: Pick<LicenseConfig, 'dataDir' | 'databaseUrl'>): Promise<OpenDatabase> {
  const lock = config.databaseUrl ? undefined : acquireEmbeddedDatabaseLock(devKeyPaths(config).lock);
  try {
    const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: licenseDatabaseDir(config), migrations: [coreMigrations, licenseMigrations] });
    return {
      ...database,
      async close() {
        await database.close();
        lock?.release();
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/**
 * The master key sealing epoch keys: `LICENSE_MASTER_KEY`, or in dev mode a generated one kept in
 * `.tollgate/license/master.key` (0600).
 *
 * @param config - The configuration.
 * @returns The key and whether a dev key was created now.
 * @throws {@link CeremonyError} `missing_configuration` in production without the variable.
 *
 * @example
 * ```ts
 * import { resolveMasterKey, loadLicenseConfig } from '@tollgate/license-server';
 * const { key } = resolveMasterKey(loadLicenseConfig(process.env));
 * ```
 */
export function resolveMasterKey(config: StateConfig): { key: Uint8Array; created: boolean } {
  if (config.masterKey !== undefined) return { key: config.masterKey, created: false };
  if (config.production) throw new CeremonyError('missing_configuration', 'LICENSE_MASTER_KEY is required in production.');
  return readOrCreateMasterKeyFile(devKeyPaths(config).masterKey);
}

/**
 * The pinned roots certificates must verify against: `LICENSE_ROOT_PUBLIC_KEYS`, or in dev mode the dev
 * root (created on first use).
 *
 * @param config - The configuration.
 * @returns The pins.
 *
 * @example
 * ```ts
 * import { resolvePinnedRoots, loadLicenseConfig } from '@tollgate/license-server';
 * const pinnedRoots = resolvePinnedRoots(loadLicenseConfig(process.env));
 * ```
 */
export function resolvePinnedRoots(config: StateConfig): Uint8Array[] {
  if (config.rootPublicKeys.length > 0) return config.rootPublicKeys;
  if (config.production) throw new CeremonyError('missing_configuration', 'LICENSE_ROOT_PUBLIC_KEYS is required in production.');
  return [readOrCreateRootKeyFile(devKeyPaths(config).root).key.publicKey];
}

/** Options of {@link createEpochRequest}. */
export interface CreateEpochRequestOptions {
  masterKey: Uint8Array;
  /** Validity in days (1–3650). */
  days: number;
  /** First valid second; now by default. */
  notBefore?: number;
  /** Restrict the epoch to one product. */
  productScope?: string;
  clock?: Clock;
}

/**
 * Step 2 of the key ceremony (`tollgate-license epoch create`): the server generates an epoch key pair,
 * stores it sealed under the master key, and returns the certificate request for the offline root.
 *
 * @param sql - The license database.
 * @param options - Master key, validity, scope.
 * @returns The pending epoch and the request bytes.
 * @throws {@link CeremonyError} `invalid_argument` for bad days, start or product.
 *
 * @example
 * ```ts
 * import { createEpochRequest } from '@tollgate/license-server';
 * const { request } = await createEpochRequest(database.sql, { masterKey, days: 90 });
 * ```
 */
export async function createEpochRequest(sql: SqlClient, options: CreateEpochRequestOptions): Promise<{ epoch: StoredEpoch; request: Uint8Array }> {
  if (!Number.isSafeInteger(options.days) || options.days < 1 || options.days > 3650) throw new CeremonyError('invalid_argument', 'Epoch validity is 1 to 3650 whole days.');
  if (options.productScope !== undefined && !productIdPattern.test(options.productScope)) {
    throw new CeremonyError('invalid_argument', 'A product id is 1-64 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit.');
  }
  const clock = options.clock ?? systemClock;
  const notBefore = options.notBefore ?? unixSeconds(clock);
  if (!Number.isSafeInteger(notBefore) || notBefore < 0) throw new CeremonyError('invalid_argument', 'The start is a unix time in seconds.');
  return createPendingEpoch(sql, {
    masterKey: options.masterKey,
    notBefore,
    notAfter: notBefore + options.days * 86_400,
    clock,
    ...(options.productScope === undefined ? {} : { productScope: options.productScope }),
  });
}

/**
 * Step 3 of the key ceremony (`tollgate-license root sign`), run offline: signs a certificate request
 * with the root key file.
 *
 * @param rootKeyPath - The root key file.
 * @param request - The request bytes from `epoch create`.
 * @returns The certificate envelope and the decoded request (to show the operator what was signed).
 * @throws `ArtifactError` for a malformed request; {@link CeremonyError} for a bad key file.
 *
 * @example
 * ```ts
 * import { signEpochRequestWithRootFile } from '@tollgate/license-server';
 * const { certificate } = await signEpochRequestWithRootFile('root.key', requestBytes);
 * ```
 */
export async function signEpochRequestWithRootFile(rootKeyPath: string, request: Uint8Array): Promise<{ certificate: Uint8Array; request: EpochCertificateRequest }> {
  const decoded = decodeEpochCertificateRequest(request);
  const root = readRootKeyFile(rootKeyPath);
  const certificate = await signEpochCertificate(decoded, createRootSigner(root.privateKey, createNodeEd25519Signer));
  root.privateKey.fill(0);
  return { certificate, request: decoded };
}

/**
 * Step 4 of the key ceremony (`tollgate-license epoch load`; the Admin `POST /v1/admin/epochs` route
 * does the same through core): verifies the certificate against the pins and the pending epoch, and
 * activates it. A certificate that another pinned root issued for an epoch that is already certified
 * (root rotation) is stored as a **carry-over** certificate instead (`addCarryOverCertificate`), so the
 * keyset keeps listing the epoch once the old root leaves the pins. Running servers pick it up at once
 * where they listen for the database's notices, else at their next keyset refresh.
 *
 * @param sql - The license database.
 * @param options - Certificate, pins, clock.
 * @returns The activated (or carried-over) epoch.
 * @throws What `activateEpochCertificate` throws when the certificate is neither a primary nor a
 *   carry-over certificate of a stored epoch.
 *
 * @example
 * ```ts
 * import { loadEpochCertificate } from '@tollgate/license-server';
 * const epoch = await loadEpochCertificate(database.sql, { certificate, pinnedRoots });
 * ```
 */
export async function loadEpochCertificate(sql: SqlClient, options: { certificate: Uint8Array; pinnedRoots: readonly Uint8Array[]; clock?: Clock }): Promise<VerifiedEpoch> {
  try {
    return await activateEpochCertificate(sql, { ...options, verify: verifyEd25519Node });
  } catch (error) {
    // Refusals a carry-over certificate meets as a primary one: the epoch is already certified (active
    // or revoked, its key possibly wiped) or its window is over.
    const carryable =
      (error instanceof TrustChainError && (error.code === 'certificate_mismatch' || error.code === 'epoch_revoked' || error.code === 'unknown_epoch')) ||
      (isArtifactError(error) && error.reason === 'expired_epoch');
    if (!carryable) throw error;
    try {
      return (await addCarryOverCertificate(sql, { ...options, verify: verifyEd25519Node })).epoch;
    } catch {
      throw error;
    }
  }
}
