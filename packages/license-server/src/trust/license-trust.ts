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
import { createNodeEd25519Signer, verifyEd25519Node, type LogSink } from '@tollgate/core/node';

/** Options of {@link createLicenseTrust}. */
export interface LicenseTrustOptions {
  sql: SqlClient;
  /** Opens the sealed epoch keys. */
  masterKey: Uint8Array;
  /** The roots clients pin: only certificates that verify against them are published and signed with. */
  pinnedRoots: readonly Uint8Array[];
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
  /**
   * Settles with the first build: rejects when it failed (the database did not answer, or the master
   * key opens none of the published active epochs). Servers await it before listening.
   */
  firstBuild(): Promise<void>;
  /** Rebuilds keyset and signers now (calls are serialised; a failure keeps the previous state). */
  refresh(): Promise<void>;
  /** Active epochs this instance can sign with: always listed in the keyset it serves. */
  signingEpochs(): readonly SigningEpoch[];
  /** Publishes a revocation batch signed by a global epoch, then refreshes the keyset. */
  publishRevocation(input: RevocationBatchInput): Promise<PublishedRevocationBatch>;
  /** Stops the background refresh and waits for a rebuild in flight. */
  close(): Promise<void>;
}

/**
 * Creates the trust state and starts its first build in the background.
 *
 * A stored certificate that does not verify against `pinnedRoots` is left out of the keyset and never
 * signs (logged once as a warning). An active epoch whose key the master key does not open is skipped
 * (logged once as an error) while the others keep signing, except on the first build, which fails when
 * there are published active epochs and none of them opens: that is a wrong `LICENSE_MASTER_KEY`.
 *
 * @param options - Database, master key, pins, clock, logger, refresh period.
 * @returns The trust state.
 *
 * @example
 * ```ts
 * import { createLicenseTrust } from '@tollgate/license-server';
 * import { systemClock } from '@tollgate/core';
 * const trust = createLicenseTrust({ sql, masterKey, pinnedRoots, clock: systemClock, logger, refreshIntervalMs: 30_000 });
 * await trust.firstBuild();
 * await trust.publishRevocation({ licenseIds: [licenseId] });
 * ```
 */
export function createLicenseTrust(options: LicenseTrustOptions): LicenseTrust {
  const { sql, clock, logger } = options;
  let keyset: PublishedKeyset | undefined;
  let signers: SigningEpoch[] = [];
  let closed = false;
  let built = false;
  // Problems already logged, so a refresh every 30 s does not repeat them.
  let reported = new Set<string>();
  let signalClosed: () => void = () => undefined;
  const closing = new Promise<void>((resolve) => (signalClosed = resolve));
  // Closing releases a held gate, so a server stopped while cold never waits for it.
  let queue: Promise<void> = options.firstBuildGate ? Promise.race([options.firstBuildGate.catch(() => undefined), closing]) : Promise.resolve();

  const reportOnce = (seen: Set<string>, key: string, report: () => void) => {
    seen.add(key);
    if (!reported.has(key)) report();
  };

  const rebuild = async (): Promise<void> => {
    if (closed) return;
    const now = unixSeconds(clock);
    const nextKeyset = await buildKeyset(sql, { pinnedRoots: options.pinnedRoots, verify: verifyEd25519Node });
    const { keys, unopenable } = await loadEpochSigningKeys(sql, { masterKey: options.masterKey, now });
    const listed = new Set(nextKeyset.epochIds);
    const nextSigners: SigningEpoch[] = [];
    for (const { epoch, privateKey } of keys) {
      // An epoch clients cannot find in the keyset must not sign: its artifacts would fail `unknown_key`.
      if (listed.has(epoch.epochIdHex)) nextSigners.push({ epoch, signer: createNodeEd25519Signer({ privateKey, kid: epoch.epochIdHex }) });
      privateKey.fill(0);
    }
    const unopenedListed = unopenable.filter(({ epoch }) => listed.has(epoch.epochIdHex));
    if (!built && nextSigners.length === 0 && unopenedListed.length > 0) {
      throw new Error(
        `The master key opens none of the ${unopenedListed.length} published active epochs (${unopenedListed.map(({ epoch }) => epoch.epochIdHex).join(', ')}): ` +
          'is LICENSE_MASTER_KEY the key they were created with?',
      );
    }
    const seen = new Set<string>();
    for (const { epochIdHex, reason } of nextKeyset.skipped) {
      reportOnce(seen, `skipped:${epochIdHex}:${reason}`, () =>
        logger.warn({ epochId: epochIdHex, reason }, 'epoch certificate does not verify against the pinned roots: left out of the keyset, never signs'),
      );
    }
    for (const { epoch } of unopenable) {
      reportOnce(seen, `unopenable:${epoch.epochIdHex}`, () =>
        logger.error({ epochId: epoch.epochIdHex }, 'epoch key does not open with the master key (LICENSE_MASTER_KEY): this instance does not sign with it'),
      );
    }
    // Swapped together: every epoch this instance signs with is listed in the keyset it serves. The
    // keyset may list more (revoked, expired, not yet valid, or unopenable here).
    signers = nextSigners;
    keyset = nextKeyset;
    reported = seen;
    built = true;
  };

  const refresh = (): Promise<void> => {
    const run = queue.then(rebuild);
    queue = run.catch(() => undefined);
    return run;
  };

  const first = refresh();
  first.catch((error: unknown) => logger.error({ err: error }, 'first keyset build failed'));
  const background = () => {
    refresh().catch((error: unknown) => logger.error({ err: error }, 'keyset refresh failed; serving the previous keyset'));
  };
  const timer = setInterval(background, options.refreshIntervalMs);
  timer.unref();

  return {
    keyset: () => keyset,
    firstBuild: () => first,
    refresh,
    signingEpochs: () => signers,
    async publishRevocation(input) {
      if (closed) throw new Error('the license trust state is closed');
      const { signer } = pickSigningEpoch(signers, { now: unixSeconds(clock) });
      const published = await publishRevocationBatch(sql, signer, input, { clock, verify: verifyEd25519Node });
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
