import { hexEncode, unixSeconds, type Clock, type SqlClient } from '@tollgate/core';
import { createRootSigner, listEpochs, signEpochCertificate } from '@tollgate/core/license';
import { createNodeEd25519Signer } from '@tollgate/core/node';
import type { LicenseConfig } from '../config';
import { createEpochRequest, devKeyPaths, loadEpochCertificate } from './ceremony';
import { readOrCreateRootKeyFile } from './key-files';

/** An epoch is replaced in dev mode when less than this is left of it. */
const devEpochMinimumRemainingSeconds = 7 * 86_400;
const devEpochDays = 90;

/** What dev mode set up. */
export interface DevTrust {
  readonly rootPublicKey: Uint8Array;
  readonly rootPath: string;
  readonly rootCreated: boolean;
  /** The epoch created now, if the existing ones did not cover the next week. */
  readonly createdEpochId: string | undefined;
}

/**
 * Dev mode (`npm start`, not production, no `LICENSE_ROOT_PUBLIC_KEYS`): runs the whole ceremony
 * locally. Creates a dev root under `.tollgate/license/dev-root.key` on first start (reused later), and
 * makes sure an active global epoch covers at least the next seven days, creating and certifying a
 * 90-day one when not.
 *
 * @param config - The configuration (for the data directory).
 * @param sql - The license database.
 * @param options - Master key and clock.
 * @returns The dev root and what was created.
 *
 * @example
 * ```ts
 * import { ensureDevTrust, describeDevTrust } from '@tollgate/license-server';
 * import { systemClock } from '@tollgate/core';
 * console.log(describeDevTrust(await ensureDevTrust({ dataDir: '.tollgate' }, sql, { masterKey, clock: systemClock })));
 * ```
 */
export async function ensureDevTrust(config: Pick<LicenseConfig, 'dataDir'>, sql: SqlClient, options: { masterKey: Uint8Array; clock: Clock }): Promise<DevTrust> {
  const rootPath = devKeyPaths(config).root;
  const { key: root, created: rootCreated } = readOrCreateRootKeyFile(rootPath);
  const now = unixSeconds(options.clock);
  const covered = (await listEpochs(sql)).some(
    (epoch) => epoch.status === 'active' && epoch.productScope === undefined && epoch.notBefore <= now && epoch.notAfter - now >= devEpochMinimumRemainingSeconds,
  );
  let createdEpochId: string | undefined;
  if (!covered) {
    const { epoch, request } = await createEpochRequest(sql, { masterKey: options.masterKey, days: devEpochDays, clock: options.clock });
    const certificate = await signEpochCertificate(request, createRootSigner(root.privateKey, createNodeEd25519Signer));
    await loadEpochCertificate(sql, { certificate, pinnedRoots: [root.publicKey], clock: options.clock });
    createdEpochId = epoch.epochIdHex;
  }
  root.privateKey.fill(0);
  return { rootPublicKey: root.publicKey, rootPath, rootCreated, createdEpochId };
}

/**
 * The lines dev mode prints so a developer can pin the dev root in a client.
 *
 * @param trust - What {@link ensureDevTrust} returned.
 * @returns Printable text.
 *
 * @example
 * ```ts
 * import { describeDevTrust } from '@tollgate/license-server';
 * process.stdout.write(`${describeDevTrust(devTrust)}\n`);
 * ```
 */
export function describeDevTrust(trust: DevTrust): string {
  return [
    `license dev root ${trust.rootCreated ? 'created' : 'reused'} (${trust.rootPath}); pin it in dev clients:`,
    `  LICENSE_ROOT_PUBLIC_KEYS=${hexEncode(trust.rootPublicKey)}`,
    ...(trust.createdEpochId === undefined ? [] : [`  new dev signing epoch ${trust.createdEpochId} (${devEpochDays} days)`]),
  ].join('\n');
}
