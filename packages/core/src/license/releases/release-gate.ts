import type { ReleaseStatus } from '../payloads/validation-ticket';

/** Lifecycle state of a registered release (spec "States": registered → deprecated | compromised). */
export type ReleaseState = 'registered' | 'deprecated' | 'compromised';

/** What `mark-compromised` asked clients running the release to do. */
export type CompromiseAction = 'warn' | 'force_upgrade' | 'revoke';

/**
 * What the release registry says about the build a device reports (its `client_info` build fingerprint
 * or release id), before the client protocol adds the policy's version scope:
 *
 * - `unknown`: no release of the product matches → activate refuses with 1007 `release_not_registered`
 *   (validate too, for a device that changed builds); `gated: false` when the product has no releases
 *   registered at all, so a product that never registers builds is not gated.
 * - `known`: the release, its state and the product's security floor. `compromised` with action
 *   `revoke` → activate refuses with 1009, validate answers a KillOrder (reason 7, release revoked).
 */
export type ReleaseJudgement =
  | { readonly kind: 'unknown'; readonly gated: boolean }
  | {
      readonly kind: 'known';
      /** 32 lowercase hex characters (the wire carries the 16 bytes). */
      readonly releaseId: string;
      readonly variantId: string;
      readonly appVersion: string;
      readonly channel: string;
      readonly state: ReleaseState;
      /** Set when `state` is `compromised`. */
      readonly compromiseAction: CompromiseAction | null;
      /** The ticket's `releaseStatus`: 0 registered, 1 deprecated, 2 compromised. */
      readonly releaseStatus: ReleaseStatus;
      /** `true` for `compromised` with action `force_upgrade` (the ticket asks for a refresh/upgrade). */
      readonly forceUpgrade: boolean;
      /** The product's current security floor (raised by `bump_security_floor`). */
      readonly securityFloor: number;
    };

/** The port the client protocol reads releases through (implemented over SQL by the releases module). */
export interface ReleaseGate {
  /**
   * Judges the build a device reports for `productId`. The release id wins when both are given and they
   * disagree → `unknown`.
   */
  judge(input: { readonly productId: string; readonly buildFingerprint?: Uint8Array; readonly releaseId?: Uint8Array }): Promise<ReleaseJudgement>;
  /** The product's security floor (0 until a compromise bumps it). */
  securityFloor(productId: string): Promise<number>;
}
