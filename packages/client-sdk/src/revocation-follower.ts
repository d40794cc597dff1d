import { splitCborSequence, systemClock, unixSeconds, type Clock, type EpochKeySource, type RevocationBatch, hexEncode } from '@tollgate/core';
import { RevocationFeedError } from './errors';
import { getLicenseResource, type FetchFunction } from './http';
import { verifyArtifact } from './verify';

/** What the app persists between runs to resume the feed. */
export interface RevocationFollowerState {
  /** The highest revocation epoch applied (the `since` of the next request). */
  revocationEpoch: number;
  /** Epochs revoked by the batches applied so far (hex), for `verifyArtifact`'s `revokedEpochIds`. */
  revokedEpochIds: string[];
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
   * Records a revocation epoch announced by the keyset or a ticket. Refuses one lower than already seen
   * (`rollback`); a higher one becomes the target of the next {@link RevocationFollower.sync}.
   */
  observe(announcedEpoch: number): void;
  /**
   * Verifies one batch envelope and applies it; it must be exactly the next sequence number and must
   * not be signed by an epoch that an applied batch revoked (`revoked_epoch`).
   */
  apply(envelope: Uint8Array, keys: EpochKeySource): Promise<RevocationBatch>;
  /** Fetches and applies every batch after the current epoch; fails `incomplete` below an announced epoch. */
  sync(): Promise<RevocationBatch[]>;
}

/**
 * A revocation-feed follower. It persists nothing itself but exposes its state for the app to store,
 * keeps the highest revocation epoch it has seen and refuses to go backwards, and refuses any batch that
 * is not exactly the next one. Every batch is verified (`revocation-batch`, signed by a global epoch of
 * the verified keyset that no applied batch has revoked) before it is applied.
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
  const clock = options.clock ?? systemClock;
  const fetchFunction = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  let applied = options.state?.revocationEpoch ?? 0;
  if (!Number.isSafeInteger(applied) || applied < 0) throw new TypeError('state.revocationEpoch must be a non-negative integer');
  let highestSeen = applied;
  const revokedEpochIds = new Set(options.state?.revokedEpochIds ?? []);

  const observe = (announced: number) => {
    if (!Number.isSafeInteger(announced) || announced < 0) throw new TypeError('a revocation epoch is a non-negative integer');
    if (announced < highestSeen) {
      throw new RevocationFeedError('rollback', `The server announced revocation epoch ${announced}, below ${highestSeen} already seen.`, { details: { announced, highestSeen } });
    }
    highestSeen = announced;
  };

  const apply = async (envelope: Uint8Array, keys: EpochKeySource): Promise<RevocationBatch> => {
    // Epochs revoked by batches already applied sign nothing more: a batch signed by one is a forgery by
    // whoever holds its key, however well it verifies.
    const { payload } = verifyArtifact(envelope, 'revocation-batch', keys, { now: unixSeconds(clock), revokedEpochIds });
    if (payload.seq <= applied) throw new RevocationFeedError('replayed', `Batch ${payload.seq} is already applied (at ${applied}).`, { details: { seq: payload.seq, applied } });
    if (payload.seq !== applied + 1) throw new RevocationFeedError('gap', `Batch ${payload.seq} skips past ${applied + 1}.`, { details: { seq: payload.seq, expected: applied + 1 } });
    await options.onBatch?.(payload);
    for (const epochId of payload.epochIds) revokedEpochIds.add(hexEncode(epochId));
    applied = payload.seq;
    highestSeen = Math.max(highestSeen, applied);
    return payload;
  };

  return {
    state: () => ({ revocationEpoch: applied, revokedEpochIds: [...revokedEpochIds].sort() }),
    observe,
    apply,
    async sync() {
      const batches: RevocationBatch[] = [];
      const keys = await options.keys();
      for (;;) {
        const response = await getLicenseResource(fetchFunction, `${baseUrl}/v1/revocations?since=${applied}`, [200, 204]);
        if (response.status === 204) break;
        const items = splitCborSequence(new Uint8Array(await response.arrayBuffer()));
        if (items.length === 0) break;
        for (const item of items) batches.push(await apply(item, keys));
      }
      if (applied < highestSeen) {
        throw new RevocationFeedError('incomplete', `The feed ended at ${applied}, below the announced revocation epoch ${highestSeen}.`, { details: { applied, highestSeen } });
      }
      return batches;
    },
  };
}
