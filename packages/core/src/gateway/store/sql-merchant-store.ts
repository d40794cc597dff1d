import type { SqlClient } from '../../storage/sql-client';
import type { MerchantStore } from './merchant-store';
import type { MerchantRecord } from './records';
import { registerInSql } from './sql-registration';
import {
  challengeColumns,
  payToColumns,
  toChallenge,
  toCredential,
  toPayTo,
  type ChallengeRow,
  type CredentialRow,
  type PayToRow,
} from './sql-rows';

/**
 * The {@link MerchantStore} on PostgreSQL (PGlite or a server) through the `SqlClient` port. Every
 * atomic step is one statement or one transaction in SQL (see the port's contract), so any number of
 * gateway instances can share the database.
 *
 * @param sql - Database with `coreMigrations` and `gatewayMigrations` applied.
 * @returns The store.
 * @example
 * ```ts
 * import { coreMigrations, gatewayMigrations, runMigrations } from '@tollgate/core';
 * import { createSqlMerchantStore } from '@tollgate/core/gateway';
 * import { createPgliteClient } from '@tollgate/core/pglite';
 * const sql = await createPgliteClient({ dataDir: './data' });
 * await runMigrations(sql, coreMigrations);
 * await runMigrations(sql, gatewayMigrations);
 * const merchants = createSqlMerchantStore(sql);
 * ```
 */
export function createSqlMerchantStore(sql: SqlClient): MerchantStore {
  return {
    async insertChallenge(challenge) {
      await sql.query(
        `INSERT INTO gateway_challenges (${challengeColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          challenge.id,
          challenge.origin,
          challenge.action,
          challenge.payTo,
          challenge.network,
          challenge.webhookSha256,
          challenge.nonce,
          challenge.issuedAt,
          challenge.expiresAt,
          challenge.consumedAt,
        ],
      );
    },

    async getChallenge(id) {
      const { rows } = await sql.query<ChallengeRow>(`SELECT ${challengeColumns} FROM gateway_challenges WHERE id = $1`, [id]);
      return rows[0] === undefined ? undefined : toChallenge(rows[0]);
    },

    async deleteExpiredChallenges(before) {
      const { rowCount } = await sql.query('DELETE FROM gateway_challenges WHERE expires_at < $1', [before]);
      return rowCount;
    },

    register: (request) => registerInSql(sql, request),

    async findApiKey(secretHash) {
      const { rows } = await sql.query<{ id: string; merchant_id: string; status: 'current' | 'previous' }>(
        `SELECT id, merchant_id, status FROM gateway_credentials
         WHERE secret_hash = $1 AND kind = 'api' AND status IN ('current', 'previous')`,
        [secretHash],
      );
      const row = rows[0];
      return row === undefined ? undefined : { merchantId: row.merchant_id, credentialId: row.id, status: row.status };
    },

    async getMerchant(merchantId): Promise<MerchantRecord | undefined> {
      const merchants = await sql.query<{ id: string; label: string; webhook_url: string | null; created_at: Date }>(
        'SELECT id, label, webhook_url, created_at FROM gateway_merchants WHERE id = $1',
        [merchantId],
      );
      const merchant = merchants.rows[0];
      if (merchant === undefined) return undefined;
      const payTos = await sql.query<PayToRow>(
        `SELECT ${payToColumns} FROM gateway_pay_tos WHERE merchant_id = $1 ORDER BY registered_at, address`,
        [merchantId],
      );
      const credentials = await sql.query<CredentialRow>(
        `SELECT id, kind, status, created_at, revoked_at FROM gateway_credentials
         WHERE merchant_id = $1 AND status IN ('current', 'previous')
         ORDER BY kind, created_at, CASE status WHEN 'previous' THEN 0 ELSE 1 END, id`,
        [merchantId],
      );
      return {
        id: merchant.id,
        label: merchant.label,
        webhookUrl: merchant.webhook_url,
        createdAt: merchant.created_at,
        payTos: payTos.rows.map(toPayTo),
        credentials: credentials.rows.map(toCredential),
      };
    },

    rotateCredential({ merchantId, kind, credential, now }) {
      return sql.transaction(async (tx) => {
        // The merchant row lock serialises rotations (and recoveries) of one merchant.
        const merchant = await tx.query('SELECT id FROM gateway_merchants WHERE id = $1 FOR UPDATE', [merchantId]);
        if (merchant.rowCount === 0) return { kind: 'merchant_not_found' as const };
        const previous = await tx.query<{ id: string }>(
          `SELECT id FROM gateway_credentials WHERE merchant_id = $1 AND kind = $2 AND status = 'previous'`,
          [merchantId, kind],
        );
        if (previous.rows[0] !== undefined) return { kind: 'previous_exists' as const, previousId: previous.rows[0].id };
        const demoted = await tx.query<{ id: string }>(
          `UPDATE gateway_credentials SET status = 'previous' WHERE merchant_id = $1 AND kind = $2 AND status = 'current' RETURNING id`,
          [merchantId, kind],
        );
        const previousId = demoted.rows[0]?.id;
        if (previousId === undefined) throw new Error(`Merchant ${merchantId} has no current ${kind} credential.`);
        await tx.query(
          `INSERT INTO gateway_credentials (id, merchant_id, kind, secret_hash, status, created_at) VALUES ($1, $2, $3, $4, 'current', $5)`,
          [credential.id, merchantId, kind, kind === 'api' ? (credential.secretHash ?? null) : null, now],
        );
        return { kind: 'rotated' as const, previousId };
      });
    },

    async revokePreviousCredential({ merchantId, kind, now }) {
      const { rows } = await sql.query<{ id: string }>(
        `UPDATE gateway_credentials SET status = 'revoked', revoked_at = $3
         WHERE merchant_id = $1 AND kind = $2 AND status = 'previous' RETURNING id`,
        [merchantId, kind, now],
      );
      return { revokedId: rows[0]?.id ?? null };
    },

    async getPayTo(address) {
      const { rows } = await sql.query<PayToRow>(`SELECT ${payToColumns} FROM gateway_pay_tos WHERE address = $1`, [address]);
      return rows[0] === undefined ? undefined : toPayTo(rows[0]);
    },

    async retirePayTo({ merchantId, address, now }) {
      const { rows } = await sql.query<PayToRow>(
        `UPDATE gateway_pay_tos SET status = 'retired', retired_at = COALESCE(retired_at, $3)
         WHERE address = $1 AND merchant_id = $2 RETURNING ${payToColumns}`,
        [address, merchantId, now],
      );
      return rows[0] === undefined ? undefined : toPayTo(rows[0]);
    },
  };
}
