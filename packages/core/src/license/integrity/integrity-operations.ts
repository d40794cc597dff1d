import * as v from 'valibot';
import { hexEncode } from '../../crypto/hex';
import { sha256 } from '../../crypto/hash';
import { AdminError } from '../../errors/admin';
import { pageOf, parseAdminInput, parseAdminPage, requireVendorProduct } from '../admin/admin-input';
import { adminOperation, adminRevokeBodyLimit, type AdminAlternativeAuth, type AdminCall, type AdminOperation } from '../admin/admin-operation';
import { IntegrityManifestError, integrityManifestLimits, parseIntegrityManifest } from './manifest';
import { createIntegritySignerKey, findIntegritySignerKey, IntegritySignerSeal, listIntegritySignerKeys, revokeIntegritySignerKey, signWithIntegrityKey, type IntegritySignerKey } from './signer-keys';

/** What the integrity operations need. */
export interface IntegrityOperationsDeps {
  /** `LICENSE_MASTER_KEY`: signer private keys are sealed under a subkey of it. */
  readonly masterKey: Uint8Array;
  /**
   * A second way into `POST /integrity/sign` (CI OIDC, see `ciOidcAuthentication`). The actor it admits
   * must carry `claims.product_ids`: the comma-separated products it may sign for.
   */
  readonly signAuthentication?: AdminAlternativeAuth;
}

/** The response header naming the key that signed. */
export const signerKeyHeader = 'x-ls-signer-key';

const productId = v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/, 'a product id: 32 lower-case hex digits'));
const registerSchema = v.strictObject({ product_id: productId, label: v.optional(v.pipe(v.string(), v.maxLength(128))) });
const listSchema = v.strictObject({ product_id: v.optional(productId), status: v.optional(v.picklist(['registered', 'revoked'])), limit: v.optional(v.string()), cursor: v.optional(v.string()) });
const revokeSchema = v.optional(v.strictObject({ reason: v.optional(v.pipe(v.string(), v.maxLength(256))) }));
const fingerprintPattern = /^[0-9a-f]{64}$/;

/** A key as the Admin API shows it. */
export function integrityKeyView(key: IntegritySignerKey): Record<string, unknown> {
  return {
    fingerprint: key.fingerprint,
    product_id: key.productId,
    algorithm: 'ed25519',
    public_key_hex: hexEncode(key.publicKey),
    label: key.label,
    status: key.status,
    created_at: key.createdAt.toISOString(),
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}

async function requireKey(call: AdminCall<{ fingerprint: string }>, lock: 'update' | 'none'): Promise<IntegritySignerKey> {
  const fingerprint = call.params.fingerprint;
  const key = fingerprintPattern.test(fingerprint) ? await findIntegritySignerKey(call.sql, call.actor.vendorId, fingerprint, lock) : undefined;
  if (key === undefined) throw new AdminError('not_found', 'No such integrity signer key.');
  return key;
}

/**
 * The integrity-signing Admin operations (scope `sign:manifest`):
 * - `GET /integrity/keys` lists signer keys (`product_id?`, `status?`, `limit?`, `cursor?`);
 * - `POST /integrity/keys` generates and registers a product's signer key (`product_id`, `label?`) and
 *   answers its public half; the private half never leaves the server and is kept sealed;
 * - `POST /integrity/keys/{fingerprint}/revoke` revokes one (dry run first; registered → revoked);
 * - `POST /integrity/sign` signs a raw CBOR manifest (`application/octet-stream`, ≤ 256 KiB) with the
 *   registered key its `signer_key` names and answers the 64 raw signature bytes with
 *   `X-LS-Signer-Key: <fingerprint>`; 403 `signer_key_not_registered` when that key is unknown, revoked or
 *   another product's. Every signature is audited. Also admits `deps.signAuthentication` callers.
 *
 * @param deps - Master key and the optional CI authentication.
 * @returns The operations.
 * @example
 * ```ts
 * import { integrityOperations } from '@tollgate/core/license';
 * const operations = integrityOperations({ masterKey });
 * ```
 */
export function integrityOperations(deps: IntegrityOperationsDeps): AdminOperation[] {
  const seal = new IntegritySignerSeal(deps.masterKey);
  return [
    adminOperation({
      method: 'GET',
      path: '/integrity/keys',
      docs: { summary: 'Lists integrity signer keys of the vendor.', query: listSchema },
      scopes: ['sign:manifest'],
      kind: 'read',
      run: async (call) => {
        const filters = parseAdminInput(listSchema, call.query);
        const page = parseAdminPage(call.query);
        if (filters.product_id !== undefined) await requireVendorProduct(call.sql, call.actor.vendorId, filters.product_id);
        const rows = await listIntegritySignerKeys(call.sql, {
          vendorId: call.actor.vendorId,
          limit: page.limit,
          ...(filters.product_id === undefined ? {} : { productId: filters.product_id }),
          ...(filters.status === undefined ? {} : { status: filters.status }),
          ...(page.after === undefined ? {} : { after: page.after }),
        });
        const { items, nextCursor } = pageOf(rows, page.limit, (key) => ({ at: key.createdAt.getTime(), id: key.fingerprint }));
        return { body: { keys: items.map(integrityKeyView), next_cursor: nextCursor } };
      },
    }),
    adminOperation({
      method: 'POST',
      path: '/integrity/keys',
      docs: { summary: 'Registers an integrity signer key for a product (the server keeps the private key).', body: registerSchema, status: 201 },
      scopes: ['sign:manifest'],
      kind: 'mutation',
      run: async (call) => {
        const input = parseAdminInput(registerSchema, call.body);
        await requireVendorProduct(call.sql, call.actor.vendorId, input.product_id);
        const key = await createIntegritySignerKey(call.sql, seal, { vendorId: call.actor.vendorId, productId: input.product_id, label: input.label ?? '', now: call.now });
        await call.audit({ action: 'integrity_key.register', targetType: 'integrity_signer_key', targetId: key.fingerprint, summary: { product_id: key.productId, public_key_hex: hexEncode(key.publicKey), label: key.label } });
        return { status: 201, body: { key: integrityKeyView(key) } };
      },
    }),
    adminOperation({
      method: 'POST',
      path: '/integrity/keys/:fingerprint/revoke',
      docs: { summary: 'Revokes an integrity signer key.', body: revokeSchema, errors: ['already_revoked'] },
      scopes: ['sign:manifest'],
      kind: 'destructive',
      maxBodyBytes: adminRevokeBodyLimit,
      run: async (call) => {
        const input = parseAdminInput(revokeSchema, call.body);
        const key = await requireKey(call, call.dryRun ? 'none' : 'update');
        if (key.status === 'revoked') throw new AdminError('already_revoked', `Integrity signer key ${key.fingerprint} is already revoked.`);
        if (call.dryRun) return { body: { dry_run: true, key: integrityKeyView(key), next_status: 'revoked', effect: 'POST /integrity/sign refuses this key from then on; signatures made before stay valid unless clients drop the key.' } };
        await revokeIntegritySignerKey(call.sql, key.fingerprint, call.now);
        await call.audit({ action: 'integrity_key.revoke', targetType: 'integrity_signer_key', targetId: key.fingerprint, summary: { product_id: key.productId, reason: input?.reason ?? null } });
        return { body: { dry_run: false, key: integrityKeyView({ ...key, status: 'revoked', revokedAt: call.now }) } };
      },
    }),
    adminOperation({
      method: 'POST',
      path: '/integrity/sign',
      docs: { summary: 'Signs a release integrity manifest (raw bytes) and answers the raw signature.', description: 'With INTEGRITY_OIDC configured, a CI job may call it with its OIDC token instead of an Admin token (for its own product only).', errors: ['signer_key_not_registered'], responseMediaType: 'application/octet-stream' },
      scopes: ['sign:manifest'],
      kind: 'read',
      audited: true,
      bodyFormat: 'raw',
      maxBodyBytes: integrityManifestLimits.maxBytes,
      ...(deps.signAuthentication === undefined ? {} : { alternativeAuth: deps.signAuthentication }),
      run: async (call) => {
        const bytes = call.body as Uint8Array;
        const manifest = parseManifestOrRefuse(bytes);
        if (call.actor.via === 'alternative') {
          const allowed = (call.actor.claims?.['product_ids'] ?? '').split(',');
          if (!allowed.includes(manifest.productId)) throw new AdminError('insufficient_scope', 'This CI identity may not sign manifests of that product.');
        }
        await requireVendorProduct(call.sql, call.actor.vendorId, manifest.productId);
        const fingerprint = hexEncode(manifest.signerKey);
        const signed = await signWithIntegrityKey(call.sql, seal, { vendorId: call.actor.vendorId, productId: manifest.productId, fingerprint, manifest: bytes });
        if (signed.kind === 'not_registered') throw new AdminError('signer_key_not_registered', `Signer key ${fingerprint} is not registered for product ${manifest.productId} (unknown or revoked).`);
        await call.audit({
          action: 'integrity.sign',
          targetType: 'integrity_signer_key',
          targetId: fingerprint,
          summary: {
            product_id: manifest.productId,
            app_version: manifest.appVersion,
            build: manifest.build ?? null,
            file_count: manifest.files.length,
            manifest_sha256: hexEncode(sha256(bytes)),
            via: call.actor.via ?? 'token',
            ...(call.actor.via === 'alternative' ? { repository: call.actor.claims?.['repository'] ?? null, ref: call.actor.claims?.['ref'] ?? null } : {}),
          },
        });
        return { bytes: signed.signature, contentType: 'application/octet-stream', headers: { [signerKeyHeader]: fingerprint } };
      },
    }),
  ];
}

function parseManifestOrRefuse(bytes: Uint8Array) {
  try {
    return parseIntegrityManifest(bytes);
  } catch (error) {
    if (error instanceof IntegrityManifestError) throw new AdminError('invalid_request', error.message);
    throw error;
  }
}
