import { hexEncode, systemClock, unixSeconds, type Clock } from '@tollgate/core';
import { licenseClockSkewSeconds, splitCborSequence, type EpochKeySource, type RevocationBatch } from '@tollgate/core/license';
import { RevocationFeedError } from './errors';
import { getLicenseResource, type FetchFunction } from './http';
import { verifyArtifact } from './verify';

/**
 * A revocation epoch and the server time at which a **signed** artifact (ticket, kill order,
 * credential) stated it: every batch after that epoch was published after that time.
 */
export interface SignedFeedCheckpoint {
  revocationEpoch: number;
  serverTime: number;
}

/** What the app persists between runs to resume the feed. */
export interface RevocationFollowerState {
  /** The highest revocation epoch applied (the `since` of the next request). */
  revocationEpoch: number;
  /** Epochs revoked by the batches applied so far (hex), for `verifyArtifact`'s `revokedEpochIds`. */
  revokedEpochIds: string[];
  /**
   * The `issuedAt` of the last batch applied (server time): a later batch dated before it is refused
   * (`backdated`). Absent in state saved by older SDKs: 0.
   */
  lastIssuedAt?: number;
  /** Unix time (this device's clock) of the last sync that reached the feed head; absent before the first. */
  syncedAt?: number;
  /** The newest signed checkpoint seen (see {@link RevocationFollower.observeSigned}). */
  checkpoint?: SignedFeedCheckpoint;
}

/** Options of {@link createRevocationFollower}. */
export interface RevocationFollowerOptions {
  /** The license server. */
  baseUrl: string;
  /** The verified keys batches are checked with (a `KeysetFetcher`'s `get`, or a fixed keyset). */
  keys: () => EpochKeySource | Promise<EpochKeySource>;
  /** State saved by the app from a previous run; a fresh start otherwise. */
  state?: RevocationFollowerState;
  /** Called once per applied batch, in order: check your license and machine ids here. */
  onBatch?: (batch: RevocationBatch) => void | Promise<void>;
  fetch?: FetchFunction;
  clock?: Clock;
}

/** Follows `GET /v1/revocations` in order, verifying every batch. */
export interface RevocationFollower {
  /** A copy of the state to persist. */
  state(): RevocationFollowerState;
  /**
   * Records a revocation epoch announced by the keyset. Refuses one lower than already seen
   * (`rollback`); a higher one becomes the target of the next {@link RevocationFollower.sync}.
   */
  observe(announcedEpoch: number): void;
  /**
   * Records what a **verified** artifact states: the feed head `revocationEpoch` at `serverTime`. A
   * higher epoch becomes the target of the next sync (never a `rollback`: an old artifact may state an
   * old epoch); the newest checkpoint is kept (unless dated more than 300 s in this device's future),
   * and from then on a batch after its epoch must be dated no earlier than its time (less the 300 s clock
   * skew allowance), or it is refused as `backdated`.
   */
  observeSigned(revocationEpoch: number, serverTime: number): void;
  /**
   * Verifies one batch envelope and applies it; it must be exactly the next sequence number, must not
   * be signed by an epoch that an applied batch revoked (`revoked_epoch`), and must not be dated before
   * the last batch applied nor before the newest signed checkpoint it follows (`backdated`).
   */
  apply(envelope: Uint8Array, keys: EpochKeySource): Promise<RevocationBatch>;
  /**
   * Fetches and applies every batch after the current epoch and records the time (`syncedAt`); fails
   * `incomplete` below the highest epoch announced when the pass started. Concurrent callers share the
   * pass in flight, unless a higher epoch was announced since it started: they then share one more pass
   * after it (batches are applied one at a time, in order, never twice).
   */
  sync(): Promise<RevocationBatch[]>;
}

function readTime(value: number | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`${what} must be a non-negative integer`);
  return value;
}

/**
 * A revocation-feed follower. It persists nothing itself but exposes its state for the app to store,
 * keeps the highest revocation epoch it has seen and refuses to go backwards, and refuses any batch that
 * is not exactly the next one. Every batch is verified (`revocation-batch`, signed by a global epoch of
 * the verified keyset that no applied batch has revoked) before it is applied.
 *
 * **Back-dated batches.** The server dates each batch no earlier than the one before it, so the
 * follower refuses a batch dated before the last one it applied, and a batch after a signed
 * checkpoint's epoch dated before that checkpoint (`backdated`). That is what keeps the key of an
 * **expired** epoch — still listed to verify the old batches it signed — from signing a new batch
 * back-dated into its window: once any later batch or signed ticket is known, such a batch is refused.
 *
 * Apps normally do not call it directly: `createArtifactVerifier` drives it and refuses to verify
 * anything while it is stale.
 *
 * @param options - Server, keys, saved state, callback, fetch, clock.
 * @returns The follower.
 *
 * @example
 * ```ts
 * import { createKeysetFetcher, createRevocationFollower } from '@tollgate/client-sdk';
 * const keysets = createKeysetFetcher({ baseUrl, pinnedRoots });
 * const follower = createRevocationFollower({ baseUrl, keys: () => keysets.get(), state: loadSavedState(), onBatch: checkMyIds });
 * follower.observe((await keysets.get()).revocationEpoch);
 * await follower.sync();
 * saveState(follower.state());
 * ```
 */
export function createRevocationFollower(options: RevocationFollowerOptions): RevocationFollower {
  return new FeedFollower(options);
}

class FeedFollower implements RevocationFollower {
  private readonly clock: Clock;
  private readonly fetchFunction: FetchFunction;
  private readonly baseUrl: string;
  private applied: number;
  private highestSeen: number;
  private lastIssuedAt: number;
  private syncedAt: number | undefined;
  private checkpoint: SignedFeedCheckpoint | undefined;
  private readonly revokedEpochIds: Set<string>;
  /** The pass in flight and the epoch it was asked to reach (see `sync`). */
  private syncing: { readonly pass: Promise<RevocationBatch[]>; readonly target: number } | undefined;

  constructor(private readonly options: RevocationFollowerOptions) {
    this.clock = options.clock ?? systemClock;
    this.fetchFunction = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const saved = options.state;
    this.applied = saved?.revocationEpoch ?? 0;
    if (!Number.isSafeInteger(this.applied) || this.applied < 0) throw new TypeError('state.revocationEpoch must be a non-negative integer');
    this.highestSeen = this.applied;
    this.lastIssuedAt = readTime(saved?.lastIssuedAt, 'state.lastIssuedAt') ?? 0;
    this.syncedAt = readTime(saved?.syncedAt, 'state.syncedAt');
    if (saved?.checkpoint !== undefined) {
      const revocationEpoch = readTime(saved.checkpoint.revocationEpoch, 'state.checkpoint.revocationEpoch') as number;
      this.checkpoint = { revocationEpoch, serverTime: readTime(saved.checkpoint.serverTime, 'state.checkpoint.serverTime') as number };
      this.highestSeen = Math.max(this.highestSeen, revocationEpoch);
    }
    this.revokedEpochIds = new Set(saved?.revokedEpochIds ?? []);
  }

  state(): RevocationFollowerState {
    return {
      revocationEpoch: this.applied,
      revokedEpochIds: [...this.revokedEpochIds].sort(),
      lastIssuedAt: this.lastIssuedAt,
      ...(this.syncedAt === undefined ? {} : { syncedAt: this.syncedAt }),
      ...(this.checkpoint === undefined ? {} : { checkpoint: { ...this.checkpoint } }),
    };
  }

  observe(announced: number): void {
    if (!Number.isSafeInteger(announced) || announced < 0) throw new TypeError('a revocation epoch is a non-negative integer');
    if (announced < this.highestSeen) {
      throw new RevocationFeedError('rollback', `The server announced revocation epoch ${announced}, below ${this.highestSeen} already seen.`, {
        details: { announced, highestSeen: this.highestSeen },
      });
    }
    this.highestSeen = announced;
  }

  observeSigned(revocationEpoch: number, serverTime: number): void {
    readTime(revocationEpoch, 'revocationEpoch');
    readTime(serverTime, 'serverTime');
    this.highestSeen = Math.max(this.highestSeen, revocationEpoch);
    // A checkpoint dated in this device's future is not kept: it would make every genuine batch until
    // then look back-dated, including the one that revokes the key that signed it.
    if (serverTime > unixSeconds(this.clock) + licenseClockSkewSeconds) return;
    if (this.checkpoint === undefined || serverTime > this.checkpoint.serverTime) this.checkpoint = { revocationEpoch, serverTime };
  }

  async apply(envelope: Uint8Array, keys: EpochKeySource): Promise<RevocationBatch> {
    // Epochs revoked by batches already applied sign nothing more: a batch signed by one is a forgery by
    // whoever holds its key, however well it verifies.
    const { payload } = verifyArtifact(envelope, 'revocation-batch', keys, { now: unixSeconds(this.clock), revokedEpochIds: this.revokedEpochIds });
    const { seq, issuedAt } = payload;
    if (seq <= this.applied) throw new RevocationFeedError('replayed', `Batch ${seq} is already applied (at ${this.applied}).`, { details: { seq, applied: this.applied } });
    if (seq !== this.applied + 1) throw new RevocationFeedError('gap', `Batch ${seq} skips past ${this.applied + 1}.`, { details: { seq, expected: this.applied + 1 } });
    if (issuedAt < this.lastIssuedAt) {
      throw new RevocationFeedError('backdated', `Batch ${seq} is dated ${issuedAt}, before the batch applied before it (${this.lastIssuedAt}).`, {
        details: { seq, issuedAt, lastIssuedAt: this.lastIssuedAt },
      });
    }
    const checkpoint = this.checkpoint;
    if (checkpoint !== undefined && seq > checkpoint.revocationEpoch && issuedAt + licenseClockSkewSeconds < checkpoint.serverTime) {
      throw new RevocationFeedError('backdated', `Batch ${seq} is dated ${issuedAt}, before a signed artifact stated epoch ${checkpoint.revocationEpoch} at ${checkpoint.serverTime}.`, {
        details: { seq, issuedAt, checkpoint },
      });
    }
    await this.options.onBatch?.(payload);
    for (const epochId of payload.epochIds) this.revokedEpochIds.add(hexEncode(epochId));
    this.applied = seq;
    this.lastIssuedAt = issuedAt;
    this.highestSeen = Math.max(this.highestSeen, seq);
    return payload;
  }

  sync(): Promise<RevocationBatch[]> {
    const running = this.syncing;
    if (running !== undefined && running.target >= this.highestSeen) return running.pass;
    // Two passes at once would fetch the same batches and fail each other `replayed`: the next one waits.
    const previous = running?.pass.catch(() => undefined) ?? Promise.resolve(undefined);
    const pass: Promise<RevocationBatch[]> = previous
      .then(() => this.syncPass())
      .finally(() => {
        if (this.syncing?.pass === pass) this.syncing = undefined;
      });
    this.syncing = { pass, target: this.highestSeen };
    return pass;
  }

  private async syncPass(): Promise<RevocationBatch[]> {
    const target = this.highestSeen;
    const batches: RevocationBatch[] = [];
    const keys = await this.options.keys();
    for (;;) {
      const response = await getLicenseResource(this.fetchFunction, `${this.baseUrl}/v1/revocations?since=${this.applied}`, [200, 204]);
      if (response.status === 204) break;
      const items = splitCborSequence(new Uint8Array(await response.arrayBuffer()));
      if (items.length === 0) break;
      for (const item of items) batches.push(await this.apply(item, keys));
    }
    if (this.applied < target) {
      throw new RevocationFeedError('incomplete', `The feed ended at ${this.applied}, below the announced revocation epoch ${target}.`, {
        details: { applied: this.applied, highestSeen: target },
      });
    }
    this.syncedAt = unixSeconds(this.clock);
    return batches;
  }
}
