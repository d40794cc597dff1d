import * as v from 'valibot';
import type { AdminTransport, DestructiveOptions, MutationOptions, ReadOptions } from '../transport-types';

/** A signing epoch as the Admin API shows it (`GET /epochs`, `GET /epochs/:epochId`, `POST /epochs`). */
export const EpochSchema = v.looseObject({
  /** 32 lower-case hex digits. */
  epoch_id: v.string(),
  /** `pending` (created, not yet certified), `active` or `revoked`. */
  status: v.string(),
  product_scope: v.nullable(v.string()),
  public_key_hex: v.string(),
  /** Unix seconds. */
  not_before: v.number(),
  not_after: v.number(),
  valid_now: v.boolean(),
  expired: v.boolean(),
  /** Whether the published keyset lists it (a certificate verifies under the server's pinned roots). */
  listed_in_keyset: v.boolean(),
  certified_by: v.array(v.looseObject({ root_key_id: v.nullable(v.string()), carried_over: v.boolean() })),
  key_wiped: v.boolean(),
  created_at: v.string(),
  activated_at: v.nullable(v.string()),
  revoked_at: v.nullable(v.string()),
  /** The request a root signs (the primary root while pending, the next root at a rotation). */
  certificate_request_hex: v.string(),
});
/** A signing epoch. */
export type Epoch = v.InferOutput<typeof EpochSchema>;

/** The answer of `GET /epochs`. */
export const EpochListSchema = v.looseObject({ epochs: v.array(EpochSchema), administers_global_epochs: v.boolean() });
/** The answer of `epochs.list()`. */
export type EpochList = v.InferOutput<typeof EpochListSchema>;

/** The answer of `POST /epochs`. */
export const EpochUploadResultSchema = v.looseObject({
  /** `activated` / `already_active` (a primary certificate), `carried_over` / `already_carried_over` (another root's). */
  outcome: v.picklist(['activated', 'already_active', 'carried_over', 'already_carried_over']),
  epoch: EpochSchema,
});
/** The answer of `epochs.upload()`. */
export type EpochUploadResult = v.InferOutput<typeof EpochUploadResultSchema>;

const approvalSchema = v.looseObject({ approval_id: v.string(), requested_by: v.string(), requested_at: v.string(), expires_at: v.string() });

/** The answer of `GET /epochs/:epochId`. */
export const EpochDetailSchema = v.looseObject({
  epoch: v.looseObject({ ...EpochSchema.entries, certificates_hex: v.array(v.string()) }),
  replacement: v.looseObject({ ready: v.boolean(), epoch_ids: v.array(v.string()) }),
  revocation_approval: v.nullable(
    v.looseObject({ ...approvalSchema.entries, status: v.string(), approved_by: v.nullable(v.string()), revocation_seq: v.nullable(v.number()) }),
  ),
});
/** The answer of `epochs.get()`. */
export type EpochDetail = v.InferOutput<typeof EpochDetailSchema>;

const revokeDryRunSchema = v.looseObject({
  dry_run: v.literal(true),
  epoch_id: v.string(),
  status: v.string(),
  already_revoked: v.boolean(),
  affected_machines_upper_bound: v.number(),
  replacement_ready: v.boolean(),
  replacement_epoch_ids: v.array(v.string()),
  requires_distinct_actors: v.number(),
  approval_window_seconds: v.number(),
  /** Whether a live approval (opened by a first token) is waiting for a second one. */
  approval_pending: v.boolean(),
  approval: v.nullable(approvalSchema),
});

const revokePendingSchema = v.looseObject({
  dry_run: v.literal(false),
  approval_pending: v.literal(true),
  epoch_id: v.string(),
  requires_distinct_actors: v.number(),
  approval: approvalSchema,
});

const revokeExecutedSchema = v.looseObject({
  dry_run: v.literal(false),
  approval_pending: v.literal(false),
  revoked: v.literal(true),
  epoch_id: v.string(),
  revocation: v.looseObject({ seq: v.number(), affected_machines_upper_bound: v.number() }),
  replacement_epoch_ids: v.array(v.string()),
  approval: v.looseObject({ ...approvalSchema.entries, approved_by: v.string() }),
});

/**
 * The answer of `POST /epochs/:epochId/revoke`, one of three (narrow on `dry_run`, then `approval_pending`):
 * - `dry_run: true`: the preview (nothing changed);
 * - `dry_run: false, approval_pending: true` (HTTP 202): this token opened the two-actor approval; another
 *   Admin token of the same vendor must confirm within `approval.expires_at`;
 * - `dry_run: false, approval_pending: false, revoked: true`: a second token confirmed; the epoch is revoked.
 */
export const EpochRevokeResultSchema = v.variant('dry_run', [revokeDryRunSchema, v.variant('approval_pending', [revokePendingSchema, revokeExecutedSchema])]);
/** The answer of `epochs.revoke()`. */
export type EpochRevokeResult = v.InferOutput<typeof EpochRevokeResultSchema>;
/** The dry-run branch of {@link EpochRevokeResult}. */
export type EpochRevokeDryRun = v.InferOutput<typeof revokeDryRunSchema>;
/** The approval-opened branch of {@link EpochRevokeResult} (HTTP 202). */
export type EpochRevokePending = v.InferOutput<typeof revokePendingSchema>;
/** The executed branch of {@link EpochRevokeResult}. */
export type EpochRevokeExecuted = v.InferOutput<typeof revokeExecutedSchema>;

/** What `epochs.upload()` sends: a root-signed certificate and the pinned root that signed it. */
export interface EpochUploadInput {
  /** The certificate, lower-case hex. */
  readonly certificateHex: string;
  /** The root's 32-byte Ed25519 public key, lower-case hex; must be one of the server's pinned roots. */
  readonly rootVerifyingKeyHex: string;
}

/** Options of `epochs.revoke()`: a dry run unless `dryRun: false`, which also needs `confirmEpochId`. */
export interface EpochRevokeOptions extends DestructiveOptions {
  /** The epoch id again (sent as `confirm_epoch_id`): a confirmation must name the epoch it revokes. */
  readonly confirmEpochId?: string;
}

/** The `epochs` group: signing epochs (scope `epochs:rw`). */
export interface EpochsResource {
  /** `GET /epochs`: the epochs the token's vendor administers. */
  list(options?: ReadOptions): Promise<EpochList>;
  /** `POST /epochs`: loads a root-signed certificate (activates a pending epoch, or adds a carry-over). */
  upload(input: EpochUploadInput, options?: MutationOptions): Promise<EpochUploadResult>;
  /** `GET /epochs/:epochId`: the epoch, its certificates, replacement readiness and latest revocation approval. */
  get(epochId: string, options?: ReadOptions): Promise<EpochDetail>;
  /**
   * `POST /epochs/:epochId/revoke`: a dry run by default. Confirmed (`dryRun: false`, `confirmEpochId`
   * equal to `epochId`), the first token opens an approval (202) and a second token of the same vendor
   * executes it.
   *
   * @example
   * ```ts
   * const preview = await admin.epochs.revoke(epochId);
   * const first = await adminAlice.epochs.revoke(epochId, { dryRun: false, confirmEpochId: epochId });
   * const done = await adminBob.epochs.revoke(epochId, { dryRun: false, confirmEpochId: epochId });
   * if (!done.dry_run && !done.approval_pending) console.log(done.revocation.seq);
   * ```
   */
  revoke(epochId: string, options?: EpochRevokeOptions): Promise<EpochRevokeResult>;
}

/**
 * Builds the `epochs` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * import { createAdminClient } from '@tollgate/admin-client';
 * const admin = createAdminClient({ baseUrl, token });
 * const { epochs } = await admin.epochs.list();
 * ```
 */
export function createEpochsResource(transport: AdminTransport): EpochsResource {
  const epochPath = (epochId: string) => `/epochs/${encodeURIComponent(epochId)}`;
  return {
    list: async (options) => (await transport.request({ method: 'GET', path: '/epochs', kind: 'read', schema: EpochListSchema, options })).body,
    upload: async (input, options) =>
      (
        await transport.request({
          method: 'POST',
          path: '/epochs',
          kind: 'mutation',
          body: { certificate_hex: input.certificateHex, root_verifying_key_hex: input.rootVerifyingKeyHex },
          schema: EpochUploadResultSchema,
          options,
        })
      ).body,
    get: async (epochId, options) => (await transport.request({ method: 'GET', path: epochPath(epochId), kind: 'read', schema: EpochDetailSchema, options })).body,
    revoke: async (epochId, options = {}) => {
      const { confirmEpochId, ...destructive } = options;
      const answer = await transport.request({
        method: 'POST',
        path: `${epochPath(epochId)}/revoke`,
        kind: 'destructive',
        ...(confirmEpochId === undefined ? {} : { body: { confirm_epoch_id: confirmEpochId } }),
        schema: EpochRevokeResultSchema,
        options: destructive,
      });
      return answer.body;
    },
  };
}

