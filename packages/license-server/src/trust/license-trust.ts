import {
  buildKeyset,
  loadEpochSigningKeys,
  pickSigningEpoch,
  publishRevocationBatch,
  unixSeconds,
  type Clock,
  type PublishedKeyset,
  type PublishedRevocationBatch,
  type RevocationBatchInput,
  type SigningEpoch,
  type SqlClient,
} from '@tollgate/core';
import { createNodeEd25519Signer, type LogSink } from '@tollgate/core/node';

/** Options of {@link createLicenseTrust}. */
export interface LicenseTrustOptions {
  sql: SqlClient;
  /** Opens the sealed epoch keys. */
  masterKey: Uint8Array;
  clock: Clock;
  logger: LogSink;
  /** Period of the background rebuild (every instance picks up other instances' and the CLI's changes). */
  refreshIntervalMs: number;
  /**
   * Awaited before the first build. Tests hold it to observe the cold cache deterministically; servers
   * leave it out.
   */
  firstBuildGate?: Promise<void>;
}

/**
 * The server's view of its trust chain: the keyset served by `GET /v1/keys` and the epoch signers.
 * Both are rebuilt together from the database at start, after every change made through this object,
 * and every `refreshIntervalMs`. Until the first build completes the keyset is cold (`undefined`).
 */
export interface LicenseTrust {
  /** The current `GET /v1/keys` body, or `undefined` while the cache is cold. */
  keyset(): PublishedKeyset | undefined;
  /** Rebuilds keyset and signers now (calls are serialised; a failure keeps the previous state). */
  refresh(): Promise<void>;
  /** Active epochs this instance can sign with. */
  signingEpochs(): readonly SigningEpoch[];
  /** Publishes a revocation batch signed by a global epoch, then refreshes the keyset. */
  publishRevocation(input: RevocationBatchInput): Promise<PublishedRevocationBatch>;
  /** Stops the background refresh and waits for a rebuild in flight. */
  close(): Promise<void>;
}

/**
 * Creates the trust state and starts its first build in the background.
 *
 * @param options - Database, master key, clock, logger, refresh period.
 * @returns The trust state.
 *
 * @example
 * ```ts
 * import { createLicenseTrust } from '@tollgate/license-server';
 * import { systemClock } from '@tollgate/core';
 * const trust = createLicenseTrust({ sql, masterKey, clock: systemClock, logger, refreshIntervalMs: 30_000 });
 * await trust.publishRevocation({ licenseIds: [licenseId] });
 * ```
 */
export function createLicenseTrust(options: LicenseTrustOptions): LicenseTrust {
  const { sql, clock, logger } = options;
  let keyset: PublishedKeyset | undefined;
  let signers: SigningEpoch[] = [];
  let closed = false;
  let signalClosed: () => void = () => undefined;
  const closing = new Promise<void>((resolve) => (signalClosed = resolve));
  // Closing releases a held gate, so a server stopped while cold never waits for it.
  let queue: Promise<void> = options.firstBuildGate ? Promise.race([options.firstBuildGate.catch(() => undefined), closing]) : Promise.resolve();

  const rebuild = async (): Promise<void> => {
    if (closed) return;
    const now = unixSeconds(clock);
    const keys = await loadEpochSigningKeys(sql, { masterKey: options.masterKey, now });
    const nextSigners = keys.map(({ epoch, privateKey }) => {
      const signer = createNodeEd25519Signer({ privateKey, kid: epoch.epochIdHex });
      privateKey.fill(0);
      return { epoch, signer };
    });
    const nextKeyset = await buildKeyset(sql);
    // Swapped together, so the keyset never lists an epoch this instance cannot sign with, or the reverse.
    signers = nextSigners;
    keyset = nextKeyset;
  };

  const refresh = (): Promise<void> => {
    const run = queue.then(rebuild);
    queue = run.catch(() => undefined);
    return run;
  };

  const background = () => {
    refresh().catch((error: unknown) => logger.error({ err: error }, 'keyset refresh failed; serving the previous keyset'));
  };
  background();
  const timer = setInterval(background, options.refreshIntervalMs);
  timer.unref();

  return {
    keyset: () => keyset,
    refresh,
    signingEpochs: () => signers,
    async publishRevocation(input) {
      if (closed) throw new Error('the license trust state is closed');
      const { signer } = pickSigningEpoch(signers, { now: unixSeconds(clock) });
      const published = await publishRevocationBatch(sql, signer, input, { clock });
      await refresh();
      return published;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      signalClosed();
      await queue;
    },
  };
}
