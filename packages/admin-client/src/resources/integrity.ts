import * as v from 'valibot';
import { AdminResponseError } from '../errors';
import type { AdminList, AdminTransport, DestructiveOptions, MutationOptions, ReadOptions } from '../transport-types';

/** An integrity signer key: its public half (the private half never leaves the server). */
export const IntegrityKeySchema = v.looseObject({
  /** 64 lower-case hex digits: the key's fingerprint, named in manifests as `signer_key`. */
  fingerprint: v.string(),
  product_id: v.string(),
  algorithm: v.string(),
  public_key_hex: v.string(),
  label: v.string(),
  /** `registered` or `revoked`. */
  status: v.string(),
  created_at: v.string(),
  revoked_at: v.nullable(v.string()),
});
/** An integrity signer key. */
export type IntegrityKey = v.InferOutput<typeof IntegrityKeySchema>;

/** `POST /integrity/keys` answers `{ key }` (201): the call resolves to the key. */
const keyAnswerSchema = v.pipe(v.looseObject({ key: IntegrityKeySchema }), v.transform((answer) => answer.key));

/** The answer of `POST /integrity/keys/:fingerprint/revoke`: narrow on `dry_run`. */
export const IntegrityKeyRevokeResultSchema = v.variant('dry_run', [
  v.looseObject({ dry_run: v.literal(true), key: IntegrityKeySchema, next_status: v.string(), effect: v.string() }),
  v.looseObject({ dry_run: v.literal(false), key: IntegrityKeySchema }),
]);
/** The answer of `integrity.keys.revoke()`. */
export type IntegrityKeyRevokeResult = v.InferOutput<typeof IntegrityKeyRevokeResultSchema>;

/** Filters of `integrity.keys.list()`. */
export interface IntegrityKeyListQuery {
  readonly productId?: string;
  readonly status?: 'registered' | 'revoked';
  /** Page size, 1 to 200 (default 50). */
  readonly limit?: number;
}

/** What `integrity.keys.register()` sends: the server generates the key pair. */
export interface IntegrityKeyRegisterInput {
  readonly productId: string;
  /** At most 128 characters. */
  readonly label?: string;
}

/** Options of `integrity.keys.revoke()`: a dry run unless `dryRun: false`. */
export interface IntegrityKeyRevokeOptions extends DestructiveOptions {
  /** Why (at most 256 characters), kept in the audit event. */
  readonly reason?: string;
}

/** A manifest signature: the 64 raw Ed25519 signature bytes and the fingerprint of the key that made them. */
export interface IntegritySignature {
  readonly signature: Uint8Array;
  /** The `X-LS-Signer-Key` header: the signer key's fingerprint. */
  readonly signerKey: string;
}

/** The `integrity.keys` sub-group. */
export interface IntegrityKeysResource {
  /** `GET /integrity/keys`: paginated. */
  list(query?: IntegrityKeyListQuery, options?: ReadOptions): AdminList<IntegrityKey>;
  /** `POST /integrity/keys`: generates and registers a product's signer key. */
  register(input: IntegrityKeyRegisterInput, options?: MutationOptions): Promise<IntegrityKey>;
  /** `POST /integrity/keys/:fingerprint/revoke` (destructive); an already revoked key is 409 `already_revoked`. */
  revoke(fingerprint: string, options?: IntegrityKeyRevokeOptions): Promise<IntegrityKeyRevokeResult>;
}

/** The `integrity` group: build-manifest signing (scope `sign:manifest`). */
export interface IntegrityResource {
  readonly keys: IntegrityKeysResource;
  /**
   * `POST /integrity/sign`: signs a raw CBOR manifest (at most 256 KiB) with the registered key its
   * `signer_key` names. Every signature is audited; an unknown or revoked key is 403 `signer_key_not_registered`.
   *
   * @example
   * ```ts
   * const { signature, signerKey } = await admin.integrity.sign(manifestBytes);
   * ```
   */
  sign(manifest: Uint8Array, options?: ReadOptions): Promise<IntegritySignature>;
}

/** The response header naming the key that signed. */
const signerKeyHeader = 'x-ls-signer-key';
const ed25519SignatureBytes = 64;

/**
 * Builds the `integrity` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * import { createAdminClient } from '@tollgate/admin-client';
 * const admin = createAdminClient({ baseUrl, token });
 * const key = await admin.integrity.keys.register({ productId, label: 'ci' });
 * ```
 */
export function createIntegrityResource(transport: AdminTransport): IntegrityResource {
  return {
    keys: {
      list: (query = {}, options) =>
        transport.list({ path: '/integrity/keys', query: { product_id: query.productId, status: query.status, limit: query.limit }, itemsKey: 'keys', itemSchema: IntegrityKeySchema, options }),
      register: async (input, options) =>
        (
          await transport.request({
            method: 'POST',
            path: '/integrity/keys',
            kind: 'mutation',
            body: { product_id: input.productId, label: input.label },
            schema: keyAnswerSchema,
            options,
          })
        ).body,
      revoke: async (fingerprint, options = {}) => {
        const { reason, ...destructive } = options;
        const answer = await transport.request({
          method: 'POST',
          path: `/integrity/keys/${encodeURIComponent(fingerprint)}/revoke`,
          kind: 'destructive',
          ...(reason === undefined ? {} : { body: { reason } }),
          schema: IntegrityKeyRevokeResultSchema,
          options: destructive,
        });
        return answer.body;
      },
    },
    sign: async (manifest, options) => {
      const answer = await transport.requestBytes({ method: 'POST', path: '/integrity/sign', kind: 'read', rawBody: manifest, contentType: 'application/octet-stream', options });
      const signerKey = answer.headers[signerKeyHeader];
      // The raw answer has no schema: check its shape here, as validation would for JSON.
      if (signerKey === undefined || answer.bytes.length !== ed25519SignatureBytes) {
        throw new AdminResponseError(
          'invalid_response',
          `POST /integrity/sign answered ${answer.bytes.length} bytes${signerKey === undefined ? ` without ${signerKeyHeader}` : ''}; expected a ${ed25519SignatureBytes}-byte signature and the signer key header.`,
          answer.status,
          answer.requestId,
        );
      }
      return { signature: answer.bytes, signerKey };
    },
  };
}
