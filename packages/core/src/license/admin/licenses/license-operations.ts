import { randomBytes, randomId, type RandomSource } from '../../../crypto/random';
import { AdminError } from '../../../errors/admin';
import type { SqlClient } from '../../../storage/sql-client';
import { adminOperation, type AdminOperation } from '../admin-operation';
import { pageOf, parseAdminInput, parseAdminPage, requireVendorProduct } from '../admin-input';
import { resolveEntitlements } from '../../model/catalog/resolve-entitlements';
import { createSqlMachineStore, machineView } from '../../model/machines/machine-store';
import type { AdminRevocationDeps } from './admin-revocation';
import { alreadyRevoked, refuseRevokedLicense, requireLicense } from './license-access';
import { licensePreviewFallbackOperation } from './license-fallback-operation';
import { generateLicenseKey, hashLicenseKey, licenseKeyHint } from '../../model/licenses/license-key';
import { readLicensePolicy } from '../../model/licenses/license-policy';
import { licenseView, type LicenseRecord, type NewLicense } from '../../model/licenses/license-record';
import { licenseRevokeOperation } from './license-revoke-operation';
import { changeTierSchema, issueLicensesSchema, listLicensesQuerySchema, patchLicenseSchema } from '../../model/licenses/license-schemas';
import { createSqlLicenseStore, type LicenseChanges } from '../../model/licenses/license-store';
import { offlineKeyOperation } from './offline-key-operation';

/** What the license operations need (`licenseOperations(deps)`). */
export interface LicenseOperationsDeps extends AdminRevocationDeps {
  /** `deriveLicenseAdminKeys(masterKey).licenseKeyHash`: keys are stored only as this keyed hash. */
  readonly licenseKeyHashKey: Uint8Array;
  /** Where license keys and ids come from (the platform CSPRNG unless a test injects one). */
  readonly random?: RandomSource;
}

/** Most machines `GET /licenses/:licenseId/machines` lists (license spec, "Limits"). */
export const maxLicenseMachinesListed = 1000;

/** The entitlements a license grants now: its tier (or the policy's) with its overrides. */
async function licenseEntitlements(sql: SqlClient, license: LicenseRecord, changes: { tier?: string; overrides?: LicenseRecord['entitlementOverrides'] } = {}) {
  return resolveEntitlements(sql, license.vendorId, {
    product_id: license.productId,
    tier: changes.tier ?? license.tier ?? license.policyTier,
    overrides: changes.overrides ?? license.entitlementOverrides,
  });
}

async function requireAccountOfProduct(sql: SqlClient, vendorId: string, productId: string, accountId: string): Promise<void> {
  const { rows } = await sql.query<{ status: string }>('SELECT status FROM license_accounts WHERE account_id = $1 AND vendor_id = $2 AND product_id = $3', [accountId, vendorId, productId]);
  if (rows[0] === undefined) throw new AdminError('not_found', "No such account of the policy's product.");
  if (rows[0].status !== 'active') throw new AdminError('invalid_request', 'The account is revoked: licenses cannot be issued to it.');
}

const issueOperation = (deps: LicenseOperationsDeps) =>
  adminOperation({
    method: 'POST',
    path: '/licenses',
    docs: { summary: 'Issues licenses under a policy (count at once); each key is shown once.', body: issueLicensesSchema, status: 201, errors: ['invalid_entitlement'] },
    scopes: ['licenses:rw'],
    kind: 'mutation',
    run: async (call) => {
      const input = parseAdminInput(issueLicensesSchema, call.body);
      const vendorId = call.actor.vendorId;
      const policy = await readLicensePolicy(call.sql, vendorId, input.policy_id);
      if (policy === undefined) throw new AdminError('not_found', 'No such policy.');
      if (input.account_id !== undefined) await requireAccountOfProduct(call.sql, vendorId, policy.productId, input.account_id);
      const duration = policy.terms.duration_seconds;
      const expiresAt = input.expires_at !== undefined ? input.expires_at : duration === null ? null : new Date(call.now.getTime() + duration * 1000);
      if (expiresAt !== null && expiresAt.getTime() <= call.now.getTime()) throw new AdminError('invalid_request', 'expires_at must be in the future.');

      const random = deps.random ?? randomBytes;
      const keys = new Map<string, string>();
      const licenses: NewLicense[] = Array.from({ length: input.count }, () => {
        const key = generateLicenseKey(random);
        const licenseId = randomId(random);
        keys.set(licenseId, key);
        return {
          licenseId,
          vendorId,
          productId: policy.productId,
          policyId: policy.policyId,
          keyHash: hashLicenseKey(deps.licenseKeyHashKey, key) as string,
          keyHint: licenseKeyHint(key),
          accountId: input.account_id ?? null,
          seatsOverride: input.seats_override ?? null,
          expiresAt,
          metadata: input.metadata,
          createdAt: call.now,
        };
      });
      // One statement: all `count` licenses exist afterwards, or none.
      const issued = await createSqlLicenseStore(call.sql).insertMany(licenses);
      for (const license of issued) {
        await call.audit({
          action: 'license.issue',
          targetType: 'license',
          targetId: license.licenseId,
          summary: { policy_id: license.policyId, product_id: license.productId, account_id: license.accountId, count: input.count },
        });
      }
      // The only answer that ever holds the plaintext keys (the journal keeps it sealed for replays).
      return { status: 201, body: { licenses: issued.map((license) => ({ ...licenseView(license, call.now), key: keys.get(license.licenseId) })) } };
    },
  });

const patchOperation = adminOperation({
  method: 'PATCH',
  path: '/licenses/:licenseId',
  docs: { summary: 'Changes a license: seats, expiry, metadata, entitlement overrides, version scope.', body: patchLicenseSchema, errors: ['invalid_entitlement', 'already_revoked'] },
  scopes: ['licenses:rw'],
  kind: 'mutation',
  run: async (call) => {
    // The target first: another vendor's license is 404 whatever the body says.
    const license = await requireLicense(call, call.params.licenseId);
    const patch = parseAdminInput(patchLicenseSchema, call.body);
    refuseRevokedLicense(license);
    if (patch.entitlement_overrides !== undefined) await licenseEntitlements(call.sql, license, { overrides: patch.entitlement_overrides });
    const changes: LicenseChanges = {
      ...(patch.status === undefined ? {} : { status: patch.status }),
      ...(patch.expires_at === undefined ? {} : { expiresAt: patch.expires_at }),
      ...(patch.seats_override === undefined ? {} : { seatsOverride: patch.seats_override }),
      ...(patch.entitlement_overrides === undefined ? {} : { entitlementOverrides: patch.entitlement_overrides }),
      ...(patch.version_scope_override === undefined ? {} : { versionScopeOverride: patch.version_scope_override }),
    };
    const outcome = await createSqlLicenseStore(call.sql).update(call.actor.vendorId, license.licenseId, changes, call.now);
    if (outcome.kind === 'not_found') throw new AdminError('not_found', 'No such license.');
    if (outcome.kind === 'revoked') throw alreadyRevoked(license.licenseId);
    const summary = { ...patch, ...(patch.expires_at === undefined ? {} : { expires_at: patch.expires_at?.toISOString() ?? null }) };
    await call.audit({ action: 'license.update', targetType: 'license', targetId: license.licenseId, summary });
    return { body: { license: licenseView(outcome.license, call.now) } };
  },
});

const changeTierOperation = adminOperation({
  method: 'POST',
  path: '/licenses/:licenseId/change-tier',
  docs: { summary: "Moves a license to another tier of its product's catalog.", body: changeTierSchema, errors: ['invalid_entitlement', 'already_revoked'] },
  scopes: ['licenses:rw'],
  kind: 'mutation',
  run: async (call) => {
    const license = await requireLicense(call, call.params.licenseId);
    const { tier } = parseAdminInput(changeTierSchema, call.body);
    refuseRevokedLicense(license);
    // Resolving checks that the tier is one of the product's (422 `invalid_entitlement` otherwise).
    const entitlements = await licenseEntitlements(call.sql, license, { tier });
    const outcome = await createSqlLicenseStore(call.sql).update(call.actor.vendorId, license.licenseId, { tier }, call.now);
    if (outcome.kind === 'not_found') throw new AdminError('not_found', 'No such license.');
    if (outcome.kind === 'revoked') throw alreadyRevoked(license.licenseId);
    await call.audit({ action: 'license.change_tier', targetType: 'license', targetId: license.licenseId, summary: { from: license.tier ?? license.policyTier, to: tier } });
    return { body: { license: licenseView(outcome.license, call.now), entitlements } };
  },
});

/**
 * The license operations of the Admin API (scope `licenses:rw` unless noted; docs/decisions.md
 * "License: licenses and machines"):
 *
 * - `GET /licenses?product_id=…&status=…&limit=…&cursor=…`: the vendor's licenses of a product, newest
 *   first (`{ licenses, next_cursor }`); `status` is the shown one (`active`, `suspended`, `expired`,
 *   `revoked`).
 * - `POST /licenses` `{ policy_id, count (1–100), account_id?, seats_override?, expires_at?, metadata? }`:
 *   201 `{ licenses }`, each with its plaintext `key`, the only time it is ever shown (only its keyed
 *   hash is stored). All `count` licenses or none. `expires_at` defaults to now plus the policy's
 *   `duration_seconds` (none without one); `null` never expires.
 * - `GET /licenses/:licenseId` `{ license }`; `PATCH` changes status (active/suspended), expires_at,
 *   seats_override, entitlement_overrides (422 `invalid_entitlement` for features outside the catalog),
 *   version_scope_override; a revoked license is 409 `already_revoked`.
 * - `POST /licenses/:licenseId/change-tier` `{ tier }`: a tier of the product's catalog, else 422
 *   `invalid_entitlement`; answers the license and its new entitlement snapshot.
 * - `GET /licenses/:licenseId/preview-fallback`, `GET /licenses/:licenseId/machines` (at most 1,000,
 *   `truncated` when there are more), `POST /licenses/:licenseId/offline-key`, and
 *   `POST /licenses/:licenseId/revoke` (scope `revoke`, destructive): see their own modules.
 *
 * @param deps - Key-hash key, signing epochs, post-commit revocation notice, randomness.
 * @returns The operations.
 * @example
 * ```ts
 * import { licenseOperations, deriveLicenseAdminKeys } from '@tollgate/core/license';
 * const operations = licenseOperations({ sql, licenseKeyHashKey: deriveLicenseAdminKeys(masterKey).licenseKeyHash, signingEpochs: () => trust.signingEpochs() });
 * ```
 */
export function licenseOperations(deps: LicenseOperationsDeps): AdminOperation[] {
  return [
    adminOperation({
      method: 'GET',
      path: '/licenses',
      docs: { summary: 'Lists the licenses of a product, newest first.', query: listLicensesQuerySchema, paged: true },
      scopes: ['licenses:rw'],
      kind: 'read',
      run: async (call) => {
        const page = parseAdminPage(call.query);
        const filters = parseAdminInput(listLicensesQuerySchema, call.query);
        await requireVendorProduct(call.sql, call.actor.vendorId, filters.product_id);
        const rows = await createSqlLicenseStore(call.sql).list(call.actor.vendorId, {
          productId: filters.product_id,
          now: call.now,
          limit: page.limit + 1,
          ...(filters.status === undefined ? {} : { status: filters.status }),
          ...(page.after === undefined ? {} : { after: page.after }),
        });
        const { items, nextCursor } = pageOf(rows, page.limit, (row) => ({ at: row.createdAt.getTime(), id: row.licenseId }));
        return { body: { licenses: items.map((license) => licenseView(license, call.now)), next_cursor: nextCursor } };
      },
    }),
    issueOperation(deps),
    adminOperation({
      method: 'GET',
      path: '/licenses/:licenseId',
      docs: { summary: 'Reads one license.' },
      scopes: ['licenses:rw'],
      kind: 'read',
      run: async (call) => ({ body: { license: licenseView(await requireLicense(call, call.params.licenseId), call.now) } }),
    }),
    patchOperation,
    changeTierOperation,
    licensePreviewFallbackOperation,
    adminOperation({
      method: 'GET',
      path: '/licenses/:licenseId/machines',
      docs: { summary: 'Lists the machines of a license (truncated past the listing cap).' },
      scopes: ['licenses:rw'],
      kind: 'read',
      run: async (call) => {
        const license = await requireLicense(call, call.params.licenseId);
        const rows = await createSqlMachineStore(call.sql).list(call.actor.vendorId, { licenseId: license.licenseId, limit: maxLicenseMachinesListed + 1 });
        return { body: { license_id: license.licenseId, machines: rows.slice(0, maxLicenseMachinesListed).map(machineView), truncated: rows.length > maxLicenseMachinesListed } };
      },
    }),
    offlineKeyOperation(deps),
    licenseRevokeOperation(deps),
  ];
}
