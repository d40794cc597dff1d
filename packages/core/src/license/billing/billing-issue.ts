import { randomBytes, randomId, type RandomSource } from '../../crypto/random';
import type { SqlClient } from '../../storage/sql-client';
import { generateLicenseKey, hashLicenseKey, licenseKeyHint } from '../model/licenses/license-key';
import type { LicenseRecord } from '../model/licenses/license-record';
import { createSqlLicenseStore } from '../model/licenses/license-store';

/** Why a subscription could not get a license issued (the event is processed as `unmapped`). */
export type BillingIssueRefusal = 'policy_not_found' | 'account_not_found' | 'account_revoked';

/**
 * Issues the license of a new subscription: of the policy `tollgate_policy_id` names, owned by the
 * account `tollgate_account_id` names (of the same vendor and product, and active). The license key is
 * generated and hashed like any issued key and then dropped: nobody is shown it, because the
 * customer activates by signing in to the account (account-token activation). Vendors that hand out
 * keys issue the license through the Admin API and pass `tollgate_license_id` instead.
 *
 * @param sql - The processing transaction.
 * @param input - Policy, account, time, key-hash key and randomness.
 * @returns The issued license, or why none was.
 * @example
 * ```ts
 * const issued = await issueBillingLicense(tx, { policyId, accountId, now, licenseKeyHashKey });
 * ```
 */
export async function issueBillingLicense(
  sql: SqlClient,
  input: { policyId: string; accountId: string; now: Date; licenseKeyHashKey: Uint8Array; expiresAt: Date | null; random?: RandomSource },
): Promise<{ kind: 'issued'; license: LicenseRecord } | { kind: 'refused'; reason: BillingIssueRefusal }> {
  const policies = await sql.query<{ vendor_id: string; product_id: string }>('SELECT vendor_id, product_id FROM license_policies WHERE policy_id = $1', [input.policyId]);
  const policy = policies.rows[0];
  if (policy === undefined) return { kind: 'refused', reason: 'policy_not_found' };
  const accounts = await sql.query<{ status: string }>('SELECT status FROM license_accounts WHERE account_id = $1 AND vendor_id = $2 AND product_id = $3', [
    input.accountId,
    policy.vendor_id,
    policy.product_id,
  ]);
  const account = accounts.rows[0];
  if (account === undefined) return { kind: 'refused', reason: 'account_not_found' };
  if (account.status !== 'active') return { kind: 'refused', reason: 'account_revoked' };
  const random = input.random ?? randomBytes;
  const key = generateLicenseKey(random);
  const [license] = await createSqlLicenseStore(sql).insertMany([
    {
      licenseId: randomId(random),
      vendorId: policy.vendor_id,
      productId: policy.product_id,
      policyId: input.policyId,
      keyHash: hashLicenseKey(input.licenseKeyHashKey, key) as string,
      keyHint: licenseKeyHint(key),
      accountId: input.accountId,
      seatsOverride: null,
      expiresAt: input.expiresAt,
      metadata: {},
      createdAt: input.now,
    },
  ]);
  if (license === undefined) throw new Error('Issuing a billing license inserted no row.');
  return { kind: 'issued', license };
}
