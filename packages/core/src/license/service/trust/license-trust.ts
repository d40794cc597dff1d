import { buildKeyset, type PublishedKeyset } from '../../storage/keyset-store';
import { hexEncode } from '../../../crypto/hex';
import { loadEpochSigningKeys } from '../../storage/epoch-store';
import { pickSigningEpoch, type SigningEpoch } from '../../signing-epochs';
import { publishRevocationBatch, type PublishedRevocationBatch, type RevocationBatchInput } from '../../storage/revocation-store';
import { unixSeconds, type Clock } from '../../../time/clock';
import type { SqlClient } from '../../../storage/sql-client';
import { nobleLicenseCrypto, type LicenseCrypto } from '../license-crypto';
import type { LicenseLogSink } from '../logger';
import { createEpochSigner } from './epoch-signer';

/** Options of {@link createLicenseTrust}. */
export interface LicenseTrustOptions {
  sql: SqlClient;
  /** Opens the sealed epoch keys. */
  masterKey: Uint8Array;
  /** The roots clients pin: only certificates that verify against them are published and signed with. */
  pinnedRoots: readonly Uint8Array[];
  clock: Clock;
  logger: LicenseLogSink;
  /** Period of the background rebuild (every instance picks up other instances' and the CLI's changes). */
  refreshIntervalMs: number;
  /**
   * Awaited before the first build. Tests hold it to observe the cold cache deterministically; servers
   * leave it out.
   */
  firstBuildGate?: Promise<void>;
  /** Ed25519 of certificate checks, revocation batches and epoch signers (default {@link nobleLicenseCrypto}). */
  crypto?: LicenseCrypto;
}

/**
 * The server's view of its trust chain: the keyset served by `GET /v1/keys` and the epoch signers.
 * Both are rebuilt together from the database at start, after every change made through this object,
 * on every change notice (see {@link LicenseTrust.applyChangeNotice}) and every `refreshIntervalMs`.
 * Until the first build completes the keyset is cold (`undefined`).
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
  /**
   * Active epochs this instance can sign with, each always listed in the keyset it serves. Their
   * signers check at every signature that the epoch was not revoked since and is inside its window.
   */
  signingEpochs(): readonly SigningEpoch[];
  /** Publishes a revocation batch signed by a global epoch; epochs it names stop signing at once. */
  publishRevocation(input: RevocationBatchInput): Promise<PublishedRevocationBatch>;
  /**
   * Applies a change notice of channel `tollgate_license_trust` (migration 012): `epoch:<hex>:revoked`
   * retires that epoch's signer **at once** (a signer already handed out refuses its next signature),
   * and every notice schedules one rebuild (notices arriving meanwhile share it). Unknown notices only
   * rebuild. Never throws.
   */
  applyChangeNotice(notice: string): void;
  /** Stops the background refresh and waits for a rebuild in flight. */
  close(): Promise<void>;
}

/**
 * Creates the trust state and starts its first build in the background.
 *
 * A stored certificate that does not verify against `pinnedRoots` is left out of the keyset and never
 * signs (logged once as a warning). An active epoch whose key the master key does not open is skipped
 * (logged once as an error) while the others keep signing, except on the first build, which fails when
 * there are published active epochs and none of them opens: that is a wrong `LICENSE_MASTER_KEY`. Every
 * rebuild also wipes the sealed keys of epochs past their window (`loadEpochSigningKeys`), logged once.
 *
 * @param options - Database, master key, pins, clock, logger, refresh period.
 * @returns The trust state.
 *
 * @example
 * ```ts
 * import { systemClock } from '@tollgate/core';
 * import { createLicenseTrust } from '@tollgate/core/license';
 * const trust = createLicenseTrust({ sql, masterKey, pinnedRoots, clock: systemClock, logger, refreshIntervalMs: 30_000 });
 * await trust.firstBuild();
 * await trust.publishRevocation({ licenseIds: [licenseId] });
 * ```
 */
export function createLicenseTrust(options: LicenseTrustOptions): LicenseTrust {
  return new LicenseTrustState(options);
}

/** Named life cycle: `cold` until the first build succeeds, `built` after, `closed` for good. */
type TrustPhase = 'cold' | 'built' | 'closed';

class LicenseTrustState implements LicenseTrust {
  private phase: TrustPhase = 'cold';
  private published: PublishedKeyset | undefined;
  private signers: SigningEpoch[] = [];
  /** Epochs this instance learned were revoked. Never shrinks: the database refuses un-revoking. */
  private readonly retired = new Set<string>();
  /** Problems already logged, so a refresh every 30 s does not repeat them. */
  private reported = new Set<string>();
  /** Rebuilds run one after the other on this chain; a failure never breaks it. */
  private queue: Promise<void>;
  /** A rebuild is queued and has not started: later notices need no other. */
  private rebuildQueued = false;
  private readonly first: Promise<void>;
  private readonly timer: NodeJS.Timeout;
  private signalClosed: () => void = () => undefined;
  private readonly crypto: LicenseCrypto;

  constructor(private readonly options: LicenseTrustOptions) {
    this.crypto = options.crypto ?? nobleLicenseCrypto;
    const closing = new Promise<void>((resolve) => (this.signalClosed = resolve));
    // Closing releases a held gate, so a server stopped while cold never waits for it.
    this.queue = options.firstBuildGate ? Promise.race([options.firstBuildGate.catch(() => undefined), closing]) : Promise.resolve();
    this.first = this.refresh();
    this.first.catch((error: unknown) => options.logger.error({ err: error }, 'first keyset build failed'));
    this.timer = setInterval(() => {
      this.refresh().catch((error: unknown) => options.logger.error({ err: error }, 'keyset refresh failed; serving the previous keyset'));
    }, options.refreshIntervalMs);
    this.timer.unref();
  }

  keyset = (): PublishedKeyset | undefined => this.published;
  firstBuild = (): Promise<void> => this.first;
  signingEpochs = (): readonly SigningEpoch[] => this.signers;

  refresh(): Promise<void> {
    const run = this.queue.then(() => this.rebuild());
    this.queue = run.catch(() => undefined);
    return run;
  }

  applyChangeNotice(notice: string): void {
    const revoked = /^epoch:([0-9a-f]{16}):revoked$/.exec(notice);
    if (revoked) this.retire(revoked[1] as string);
    if (this.rebuildQueued || this.phase === 'closed') return;
    this.rebuildQueued = true;
    const run = this.queue.then(() => {
      this.rebuildQueued = false;
      return this.rebuild();
    });
    this.queue = run.catch(() => undefined);
    run.catch((error: unknown) => this.options.logger.error({ err: error, notice }, 'keyset rebuild after a change notice failed; serving the previous keyset'));
  }

  async publishRevocation(input: RevocationBatchInput): Promise<PublishedRevocationBatch> {
    if (this.phase === 'closed') throw new Error('the license trust state is closed');
    const { clock, sql } = this.options;
    const { signer } = pickSigningEpoch(this.signers, { now: unixSeconds(clock) });
    const published = await publishRevocationBatch(sql, signer, input, { clock, verify: this.crypto.verify });
    for (const epochId of published.batch.epochIds) this.retire(hexEncode(epochId));
    await this.refresh();
    return published;
  }

  async close(): Promise<void> {
    this.phase = 'closed';
    clearInterval(this.timer);
    this.signalClosed();
    await this.queue;
  }

  private isClosed(): boolean {
    return this.phase === 'closed';
  }

  private retire(epochIdHex: string): void {
    this.retired.add(epochIdHex);
    this.signers = this.signers.filter(({ epoch }) => epoch.epochIdHex !== epochIdHex);
  }

  private async rebuild(): Promise<void> {
    if (this.phase === 'closed') return;
    const { sql, clock, logger, masterKey, pinnedRoots } = this.options;
    const nextKeyset = await buildKeyset(sql, { pinnedRoots, verify: this.crypto.verify });
    const { keys, unopenable, wiped } = await loadEpochSigningKeys(sql, { masterKey, now: unixSeconds(clock) });
    const listed = new Set(nextKeyset.epochIds);
    const seen = new Set<string>();
    const reportOnce = (key: string, report: () => void) => {
      seen.add(key);
      if (!this.reported.has(key)) report();
    };
    const isRetired = (epochIdHex: string) => this.retired.has(epochIdHex);
    const nextSigners: SigningEpoch[] = [];
    for (const { epoch, privateKey } of keys) {
      // An epoch clients cannot find in the keyset must not sign: its artifacts would fail `unknown_key`.
      // A retired one read before its revocation committed must not come back either.
      try {
        if (listed.has(epoch.epochIdHex) && !isRetired(epoch.epochIdHex)) nextSigners.push({ epoch, signer: createEpochSigner(epoch, privateKey, isRetired, clock, this.crypto) });
      } catch (error) {
        reportOnce(`mismatch:${epoch.epochIdHex}`, () => logger.error({ err: error, epochId: epoch.epochIdHex }, 'epoch key does not match its certificate: this instance does not sign with it'));
      } finally {
        privateKey.fill(0);
      }
    }
    const unopenedListed = unopenable.filter(({ epoch }) => listed.has(epoch.epochIdHex));
    if (this.phase === 'cold' && nextSigners.length === 0 && unopenedListed.length > 0) {
      throw new Error(
        `The master key opens none of the ${unopenedListed.length} published active epochs (${unopenedListed.map(({ epoch }) => epoch.epochIdHex).join(', ')}): ` +
          'is LICENSE_MASTER_KEY the key they were created with?',
      );
    }
    for (const { epochIdHex, reason } of nextKeyset.skipped) {
      reportOnce(`skipped:${epochIdHex}:${reason}`, () =>
        logger.warn({ epochId: epochIdHex, reason }, 'epoch certificate does not verify against the pinned roots: left out of the keyset, never signs'),
      );
    }
    for (const { epoch } of unopenable) {
      reportOnce(`unopenable:${epoch.epochIdHex}`, () =>
        logger.error({ epochId: epoch.epochIdHex }, 'epoch key does not open with the master key (LICENSE_MASTER_KEY): this instance does not sign with it'),
      );
    }
    for (const epochId of wiped) logger.info({ epochId }, 'wiped the sealed private key of an epoch that can never sign again (expired or revoked)');
    // close() may have run while this rebuild awaited the database.
    if (this.isClosed()) return;
    // Swapped together: every epoch this instance signs with is listed in the keyset it serves. The
    // keyset may list more (revoked, expired, not yet valid, or unopenable here).
    this.signers = nextSigners.filter(({ epoch }) => !isRetired(epoch.epochIdHex));
    this.published = nextKeyset;
    this.reported = seen;
    this.phase = 'built';
  }
}
