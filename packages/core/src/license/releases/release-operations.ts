import { randomId } from '../../crypto/random';
import { AdminError } from '../../errors/admin';
import { pageOf, parseAdminInput, parseAdminPage, requireVendorProduct } from '../admin/admin-input';
import { adminOperation, type AdminCall, type AdminOperation } from '../admin/admin-operation';
import { timeOrderedPage } from '../model/catalog/catalog-schemas';
import { requireRelease, type ReleaseOperationsDeps } from './release-access';
import { announceReleaseChange } from './release-changes';
import { releaseView, type ReleaseRecord } from './release-record';
import { listReleasesQuerySchema, registerReleaseSchema } from './release-schemas';
import { releaseStateOperations } from './release-state-operations';
import { createSqlReleaseStore, type NewRelease } from './release-store';
import { releaseVariantId } from './release-variant';

/** The fields of a stored release that differ from a new registration of the same build. */
function differingFields(stored: ReleaseRecord, wanted: NewRelease): string[] {
  const differences: [string, boolean][] = [
    ['app_version', stored.appVersion !== wanted.appVersion],
    ['channel', stored.channel !== wanted.channel],
    ['manifest_root_hex', stored.manifestRoot !== wanted.manifestRoot],
    ['module_digest_hex', stored.moduleDigest !== wanted.moduleDigest],
    // A seeded variant id is a function of the seed, so equal ids mean an equal seed.
    ['variant_seed_hex', stored.hasVariantSeed !== wanted.hasVariantSeed || (wanted.hasVariantSeed && stored.variantId !== wanted.variantId)],
  ];
  return differences.filter(([, differs]) => differs).map(([field]) => field);
}

const registerOperation = (deps: ReleaseOperationsDeps) =>
  adminOperation({
    method: 'POST',
    path: '/releases',
    docs: { summary: 'Registers a release of a product (idempotent on its version and artifact: an existing one answers 200 already_registered).', body: registerReleaseSchema, status: 201 },
    scopes: ['releases:rw'],
    kind: 'mutation',
    run: async (call) => {
      const input = parseAdminInput(registerReleaseSchema, call.body);
      const wanted: NewRelease = {
        releaseId: randomId(deps.random),
        vendorId: call.actor.vendorId,
        productId: input.product_id,
        appVersion: input.app_version,
        channel: input.channel,
        buildFingerprint: input.build_fingerprint,
        variantId: releaseVariantId(deps.variantKey, input.product_id, input.variant_seed_hex, deps.random),
        hasVariantSeed: input.variant_seed_hex !== undefined,
        manifestRoot: input.manifest_root_hex ?? null,
        moduleDigest: input.module_digest_hex ?? null,
        createdAt: call.now,
      };
      const outcome = await createSqlReleaseStore(call.sql).register(wanted);
      if (outcome.kind === 'product_not_found') throw new AdminError('not_found', 'No such product.');
      if (outcome.kind === 'exists') return answerExisting(call, outcome.release, wanted);
      const release = outcome.release;
      await announceReleaseChange(call.sql, deps.sql, release.productId);
      await call.audit({
        action: 'release.register',
        targetType: 'release',
        targetId: release.releaseId,
        summary: { product_id: release.productId, app_version: release.appVersion, channel: release.channel, build_fingerprint: release.buildFingerprint, variant_id: release.variantId, already_registered: false },
      });
      return { status: 201, body: { release: releaseView(release), already_registered: false, variant_reused: outcome.variantReused } };
    },
  });

/**
 * A build registered before: the same registration again is answered with the stored release (CI may
 * retry with a new Idempotency-Key), a different one is refused, since one build cannot be two releases.
 */
async function answerExisting(call: AdminCall, stored: ReleaseRecord, wanted: NewRelease) {
  const differing = differingFields(stored, wanted);
  if (differing.length > 0) {
    throw new AdminError(
      'idempotency_conflict',
      `Build ${stored.buildFingerprint} is already registered as release ${stored.releaseId} (app_version ${stored.appVersion}, channel ${stored.channel}) with a different ${differing.join(', ')}. A build fingerprint names one build: register a rebuilt app under its own fingerprint.`,
    );
  }
  await call.audit({
    action: 'release.register',
    targetType: 'release',
    targetId: stored.releaseId,
    summary: { product_id: stored.productId, app_version: stored.appVersion, channel: stored.channel, build_fingerprint: stored.buildFingerprint, variant_id: stored.variantId, already_registered: true },
  });
  return { status: 200, body: { release: releaseView(stored), already_registered: true, variant_reused: false } };
}

/**
 * The release operations of the Admin API (scope `releases:rw`; docs/decisions.md "License: releases"):
 *
 * - `GET /releases?product_id=…&channel=…&state=…&limit=…&cursor=…`: the vendor's releases newest first,
 *   `{ releases, next_cursor }`; a foreign `product_id` is 404.
 * - `POST /releases` `{ product_id, app_version, build_fingerprint, channel, manifest_root_hex?,
 *   module_digest_hex?, variant_seed_hex? }`: 201 `{ release, already_registered: false, variant_reused }`
 *   with the server-assigned `release_id` and `variant_id`. The same build registered again with the same
 *   fields is 200 `{ release, already_registered: true }`; with other fields, 409 `idempotency_conflict`.
 * - `GET /releases/:releaseId` `{ release }`.
 * - `POST /releases/:releaseId/deprecate` and `POST /releases/:releaseId/mark-compromised` (destructive):
 *   see {@link releaseStateOperations}.
 *
 * @param deps - The database (for change notices), the variant key, randomness.
 * @returns The operations.
 * @example
 * ```ts
 * import { releaseOperations, deriveReleaseVariantKey } from '@tollgate/core/license';
 * const operations = releaseOperations({ sql, variantKey: deriveReleaseVariantKey(masterKey) });
 * ```
 */
export function releaseOperations(deps: ReleaseOperationsDeps): AdminOperation[] {
  return [
    adminOperation({
      method: 'GET',
      path: '/releases',
      docs: { summary: 'Lists releases, newest first.', query: listReleasesQuerySchema, paged: true },
      scopes: ['releases:rw'],
      kind: 'read',
      run: async (call) => {
        const filters = parseAdminInput(listReleasesQuerySchema, call.query);
        const page = timeOrderedPage(parseAdminPage(call.query));
        if (filters.product_id !== undefined) await requireVendorProduct(call.sql, call.actor.vendorId, filters.product_id);
        const rows = await createSqlReleaseStore(call.sql).list(call.actor.vendorId, {
          limit: page.limit + 1,
          ...(filters.product_id === undefined ? {} : { productId: filters.product_id }),
          ...(filters.channel === undefined ? {} : { channel: filters.channel }),
          ...(filters.state === undefined ? {} : { state: filters.state }),
          ...(page.after === undefined ? {} : { after: page.after }),
        });
        const { items, nextCursor } = pageOf(rows, page.limit, (row) => ({ at: row.createdAt.getTime(), id: row.releaseId }));
        return { body: { releases: items.map(releaseView), next_cursor: nextCursor } };
      },
    }),
    registerOperation(deps),
    adminOperation({
      method: 'GET',
      path: '/releases/:releaseId',
      docs: { summary: 'Reads one release.' },
      scopes: ['releases:rw'],
      kind: 'read',
      run: async (call) => ({ body: { release: releaseView(await requireRelease(call, call.params.releaseId)) } }),
    }),
    ...releaseStateOperations(deps),
  ];
}
