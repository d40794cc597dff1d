import * as v from 'valibot';
import { base64Decode, base64Encode } from '../../crypto/base64';
import { constantTimeEqualString } from '../../crypto/constant-time';
import { hexDecode, hexEncode } from '../../crypto/hex';
import { randomBytes, randomId, isHexId, type RandomSource } from '../../crypto/random';
import { AdminError } from '../../errors/admin';
import type { SqlClient } from '../../storage/sql-client';
import { pageOf, parseAdminInput, parseAdminPage, requireVendorProduct } from '../admin/admin-input';
import { adminOperation, type AdminCall, type AdminOperation } from '../admin/admin-operation';
import { catalogItemIdPattern, catalogItemIdSchema, hexProductIdSchema, timeOrderedPage } from '../model/catalog/catalog-schemas';
import { requireRelease } from '../releases/release-access';
import { announceReleaseChange } from '../releases/release-changes';
import { createSqlReleaseStore } from '../releases/release-store';
import { assetKeyFingerprintHex } from './asset-key-fingerprint';
import { deriveAssetKeySealKey, sealAssetKey } from './asset-key-seal';
import { assetKekView, createSqlAssetKekStore, type AssetKekRecord } from './asset-key-store';

/** What the asset-key operations need. */
export interface AssetKeyOperationsDeps {
  /** The database itself (changes are announced on its release-change channel after commit). */
  readonly sql: SqlClient;
  /** `LICENSE_MASTER_KEY`: keys are sealed under its subkey `tollgate/license/asset-key-seal/v1`. */
  readonly masterKey: Uint8Array;
  /** Source of generated keys and ids (the platform CSPRNG unless a test injects one). */
  readonly random?: RandomSource;
}

const releaseIdSchema = v.pipe(v.string('release_id must be a string'), v.check((id) => isHexId(id, 16), 'release_id must be 32 lowercase hex digits'));
const keyHexSchema = v.pipe(v.string('key_hex must be a string'), v.regex(/^[0-9a-fA-F]{64}$/, 'key_hex must be 64 hex digits (32 bytes)'));
const keyBase64Schema = v.pipe(
  v.string('key_base64 must be a string'),
  v.check((text) => /^[A-Za-z0-9+/_-]{43}={0,1}$/.test(text) && decodes32(text), 'key_base64 must be base64 or base64url of exactly 32 bytes'),
);

function decodes32(text: string): boolean {
  try {
    return base64Decode(text).length === 32;
  } catch {
    return false;
  }
}

const createSchema = v.pipe(
  v.unknown(),
  v.check((body) => !Array.isArray(body), 'the body must be an object'),
  v.strictObject(
    { release_id: releaseIdSchema, feature_id: catalogItemIdSchema, key_hex: v.optional(keyHexSchema), key_base64: v.optional(keyBase64Schema) },
    'the body is { release_id, feature_id, key_hex? | key_base64? } and nothing else',
  ),
  v.check((body) => body.key_hex === undefined || body.key_base64 === undefined, 'give key_hex or key_base64, not both (or neither, to have a key generated)'),
);

const listSchema = v.object({ product_id: v.optional(hexProductIdSchema), release_id: v.optional(releaseIdSchema) });

/** 404 unless the feature is in the catalog of the release's product (catalog items are never deleted). */
async function requireFeature(sql: SqlClient, productId: string, featureId: string | undefined): Promise<string> {
  if (featureId === undefined || !catalogItemIdPattern.test(featureId)) throw new AdminError('not_found', 'No such feature.');
  const { rows } = await sql.query("SELECT 1 FROM license_catalog_items WHERE product_id = $1 AND kind = 'feature' AND item_id = $2", [productId, featureId]);
  if (rows.length === 0) throw new AdminError('not_found', `No feature ${featureId} in the catalog of the release's product.`);
  return featureId;
}

const auditSummary = (record: AssetKekRecord, extra: Record<string, unknown>) => ({
  release_id: record.releaseId,
  feature_id: record.featureId,
  product_id: record.productId,
  fingerprint: record.fingerprint,
  source: record.source,
  ...extra,
});

const createOperation = (deps: AssetKeyOperationsDeps, sealKey: Uint8Array) =>
  adminOperation({
    method: 'POST',
    path: '/asset-keks',
    docs: { summary: 'Registers the asset key (KEK) of a feature of a release; the key is shown once.', body: createSchema, status: 201, errors: ['asset_kek_exists'] },
    scopes: ['releases:rw'],
    kind: 'mutation',
    run: async (call) => {
      const input = parseAdminInput(createSchema, call.body);
      const release = await requireRelease(call, input.release_id);
      const featureId = await requireFeature(call.sql, release.productId, input.feature_id);
      const uploaded = input.key_hex !== undefined ? hexDecode(input.key_hex.toLowerCase()) : input.key_base64 !== undefined ? base64Decode(input.key_base64) : undefined;
      const key = uploaded ?? (deps.random ?? randomBytes)(32);
      const fingerprint = assetKeyFingerprintHex(key);
      const outcome = await createSqlAssetKekStore(call.sql).insert({
        kekId: randomId(deps.random),
        releaseId: release.releaseId,
        featureId,
        vendorId: call.actor.vendorId,
        productId: release.productId,
        fingerprint,
        source: uploaded === undefined ? 'generated' : 'uploaded',
        createdAt: call.now,
        sealedKey: sealAssetKey(sealKey, { releaseId: release.releaseId, featureId }, key, deps.random),
      });
      if (outcome.kind === 'exists') return answerExisting(call, outcome.record, uploaded === undefined ? undefined : fingerprint);
      await announceReleaseChange(call.sql, deps.sql, release.productId);
      await call.audit({ action: 'asset_kek.create', targetType: 'release', targetId: release.releaseId, summary: auditSummary(outcome.record, { already_registered: false }) });
      // A generated key is shown here once (and in a replay of this request's Idempotency-Key, from the sealed journal).
      const shown = uploaded === undefined ? { key_hex: hexEncode(key), key_base64: base64Encode(key) } : {};
      return { status: 201, body: { asset_kek: assetKekView(outcome.record), already_registered: false, ...shown } };
    },
  });

/**
 * The pair has a key: the same uploaded key again is an idempotent registration (200, no key shown); a
 * generated request, or another key, is 409, since a key is never replaced in place (devices may hold it).
 */
async function answerExisting(call: AdminCall, stored: AssetKekRecord, uploadedFingerprint: string | undefined) {
  if (uploadedFingerprint === undefined || !constantTimeEqualString(uploadedFingerprint, stored.fingerprint)) {
    throw new AdminError(
      'asset_kek_exists',
      `Release ${stored.releaseId} already has an asset key for feature ${stored.featureId} (fingerprint ${stored.fingerprint}). A key is never replaced in place: devices may hold it. Delete it first (DELETE /v1/admin/asset-keks/${stored.releaseId}/${stored.featureId}) to register another.`,
    );
  }
  await call.audit({ action: 'asset_kek.create', targetType: 'release', targetId: stored.releaseId, summary: auditSummary(stored, { already_registered: true }) });
  return { status: 200, body: { asset_kek: assetKekView(stored), already_registered: true } };
}

const deleteOperation = (deps: AssetKeyOperationsDeps) =>
  adminOperation({
    method: 'DELETE',
    path: '/asset-keks/:releaseId/:featureId',
    docs: { summary: 'Deletes the asset key of a feature of a release.' },
    scopes: ['releases:rw'],
    kind: 'destructive',
    maxBodyBytes: 0,
    run: async (call) => {
      const release = await requireRelease(call, call.params.releaseId, { forUpdate: !call.dryRun });
      const featureId = await requireFeature(call.sql, release.productId, call.params.featureId);
      const store = createSqlAssetKekStore(call.sql);
      const existing = await store.get(call.actor.vendorId, release.releaseId, featureId, { forUpdate: !call.dryRun });
      const impactedDevices = await createSqlReleaseStore(call.sql).countActiveDevices(release.releaseId);
      const warnings = existing === undefined ? [`no_asset_kek: release ${release.releaseId} has no asset key for feature ${featureId}; nothing changes`] : [];
      if (call.dryRun) {
        return { body: { dry_run: true, asset_kek: existing === undefined ? null : assetKekView(existing), would_delete: existing !== undefined, impacted_devices: impactedDevices, warnings } };
      }
      const deleted = existing !== undefined && (await store.delete(call.actor.vendorId, release.releaseId, featureId));
      if (deleted) await announceReleaseChange(call.sql, deps.sql, release.productId);
      await call.audit({
        action: 'asset_kek.delete',
        targetType: 'release',
        targetId: release.releaseId,
        summary: { release_id: release.releaseId, feature_id: featureId, product_id: release.productId, deleted, fingerprint: existing?.fingerprint ?? null, impacted_devices: impactedDevices },
      });
      return { body: { dry_run: false, deleted, asset_kek: existing === undefined ? null : assetKekView(existing), impacted_devices: impactedDevices, warnings } };
    },
  });

/**
 * The asset-key operations of the Admin API (scope `releases:rw`; docs/decisions.md "License: asset keys"):
 *
 * - `GET /asset-keks?product_id=…&release_id=…&limit=…&cursor=…`: `{ asset_keks, next_cursor }`, oldest
 *   first, each `{ release_id, feature_id, product_id, fingerprint, source, created_at }`: never a key.
 * - `POST /asset-keks` `{ release_id, feature_id, key_hex? | key_base64? }` (mutation): registers the
 *   32-byte key of (release, feature), the feature from the catalog of the release's product. Without a
 *   key one is generated and shown in this answer only (`key_hex`, `key_base64`); an uploaded key is
 *   never echoed. 201 `{ asset_kek, already_registered: false }`. The same uploaded key again is 200
 *   `{ already_registered: true }`; any other second key for the pair is 409.
 * - `DELETE /asset-keks/:releaseId/:featureId` (destructive, dry run by default): `{ dry_run, asset_kek,
 *   would_delete | deleted, impacted_devices, warnings }`. Devices that unwrapped the key keep it; later
 *   credentials and tickets no longer carry it.
 *
 * @param deps - Database, master key, randomness.
 * @returns The operations.
 * @example
 * ```ts
 * import { assetKeyOperations } from '@tollgate/core/license';
 * const operations = assetKeyOperations({ sql, masterKey });
 * ```
 */
export function assetKeyOperations(deps: AssetKeyOperationsDeps): AdminOperation[] {
  const sealKey = deriveAssetKeySealKey(deps.masterKey);
  return [
    adminOperation({
      method: 'GET',
      path: '/asset-keks',
      docs: { summary: 'Lists asset keys (without key material).', query: listSchema, paged: true },
      scopes: ['releases:rw'],
      kind: 'read',
      run: async (call) => {
        const filters = parseAdminInput(listSchema, call.query);
        const page = timeOrderedPage(parseAdminPage(call.query));
        if (filters.product_id !== undefined) await requireVendorProduct(call.sql, call.actor.vendorId, filters.product_id);
        if (filters.release_id !== undefined) await requireRelease(call, filters.release_id);
        const rows = await createSqlAssetKekStore(call.sql).list(call.actor.vendorId, {
          limit: page.limit + 1,
          ...(filters.product_id === undefined ? {} : { productId: filters.product_id }),
          ...(filters.release_id === undefined ? {} : { releaseId: filters.release_id }),
          ...(page.after === undefined ? {} : { after: page.after }),
        });
        const { items, nextCursor } = pageOf(rows, page.limit, (row) => ({ at: row.createdAt.getTime(), id: row.kekId }));
        return { body: { asset_keks: items.map(assetKekView), next_cursor: nextCursor } };
      },
    }),
    createOperation(deps, sealKey),
    deleteOperation(deps),
  ];
}
