import type { SqlClient } from '../../storage/sql-client';
import type { RegistrationOutcome, RegistrationRequest } from './merchant-store';
import type { NewCredential } from './records';
import { payToColumns, type PayToRow } from './sql-rows';

type Enroll = Extract<RegistrationRequest['mode'], { kind: 'enroll' }>;

// The consumption itself is the guard: one UPDATE that only matches an unconsumed, unexpired challenge
// for this payTo and network. Concurrent callers queue on the row lock and re-check the predicate.
const consumeSql = `
  UPDATE gateway_challenges SET consumed_at = $2
  WHERE id = $1 AND consumed_at IS NULL AND expires_at > $2 AND pay_to = $3 AND network = $4
  RETURNING id`;

async function unavailableReason(tx: SqlClient, request: RegistrationRequest): Promise<RegistrationOutcome> {
  const { rows } = await tx.query<{ consumed_at: Date | null; expires_at: Date; pay_to: string; network: string }>(
    'SELECT consumed_at, expires_at, pay_to, network FROM gateway_challenges WHERE id = $1',
    [request.challengeId],
  );
  const row = rows[0];
  let reason: Extract<RegistrationOutcome, { kind: 'challenge_unavailable' }>['reason'] = 'unknown';
  if (row === undefined) reason = 'unknown';
  else if (row.consumed_at !== null) reason = 'consumed';
  else if (row.expires_at.getTime() <= request.now.getTime()) reason = 'expired';
  else if (row.pay_to !== request.payTo || row.network !== request.network) reason = 'mismatch';
  return { kind: 'challenge_unavailable', reason };
}

async function insertCredential(tx: SqlClient, merchantId: string, kind: 'api' | 'notify', credential: NewCredential, now: Date): Promise<void> {
  await tx.query(
    `INSERT INTO gateway_credentials (id, merchant_id, kind, secret_hash, status, created_at) VALUES ($1, $2, $3, $4, 'current', $5)`,
    [credential.id, merchantId, kind, kind === 'api' ? (credential.secretHash ?? null) : null, now],
  );
}

async function insertPayTo(tx: SqlClient, request: RegistrationRequest, merchantId: string): Promise<void> {
  await tx.query(
    `INSERT INTO gateway_pay_tos (address, merchant_id, status, proof, proof_network, registered_at) VALUES ($1, $2, 'active', $3, $4, $5)`,
    [request.payTo, merchantId, request.proof, request.network, request.now],
  );
}

async function createMerchant(tx: SqlClient, request: RegistrationRequest, enroll: Enroll): Promise<RegistrationOutcome> {
  await tx.query('INSERT INTO gateway_merchants (id, label, webhook_url, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)', [
    enroll.merchantId,
    enroll.label,
    enroll.webhookUrl,
    request.now,
  ]);
  await insertPayTo(tx, request, enroll.merchantId);
  await insertCredential(tx, enroll.merchantId, 'api', enroll.apiKey, request.now);
  await insertCredential(tx, enroll.merchantId, 'notify', enroll.notifyKey, request.now);
  return { kind: 'created', merchantId: enroll.merchantId };
}

// Credential recovery: the wallet owner proved control again (typically after losing the API key).
async function recoverMerchant(tx: SqlClient, request: RegistrationRequest, enroll: Enroll, merchantId: string): Promise<RegistrationOutcome> {
  const { now } = request;
  // Same lock as a rotation, so the one-current/one-previous invariant holds under concurrency.
  await tx.query('SELECT id FROM gateway_merchants WHERE id = $1 FOR UPDATE', [merchantId]);
  await tx.query('UPDATE gateway_merchants SET label = $2, webhook_url = $3, updated_at = $4 WHERE id = $1', [
    merchantId,
    enroll.label,
    enroll.webhookUrl,
    now,
  ]);
  const revoked = await tx.query<{ id: string }>(
    `UPDATE gateway_credentials SET status = 'revoked', revoked_at = $2
     WHERE merchant_id = $1 AND kind = 'api' AND status <> 'revoked' RETURNING id`,
    [merchantId, now],
  );
  await tx.query(
    `UPDATE gateway_credentials SET status = 'revoked', revoked_at = $2 WHERE merchant_id = $1 AND kind = 'notify' AND status = 'previous'`,
    [merchantId, now],
  );
  await tx.query(`UPDATE gateway_credentials SET status = 'previous' WHERE merchant_id = $1 AND kind = 'notify' AND status = 'current'`, [
    merchantId,
  ]);
  await insertCredential(tx, merchantId, 'api', enroll.apiKey, now);
  await insertCredential(tx, merchantId, 'notify', enroll.notifyKey, now);
  return { kind: 'recovered', merchantId, revokedApiKeyIds: revoked.rows.map((row) => row.id).sort() };
}

/**
 * `MerchantStore.register` in SQL: one transaction that consumes the challenge, serialises on the payTo
 * with a transaction-scoped advisory lock (a row lock cannot protect a payTo that does not exist yet),
 * and then enrolls, recovers or attaches.
 *
 * @param sql - Database with the gateway migrations.
 * @param request - The verified registration.
 * @returns What happened.
 */
export function registerInSql(sql: SqlClient, request: RegistrationRequest): Promise<RegistrationOutcome> {
  return sql.transaction(async (tx) => {
    const consumed = await tx.query(consumeSql, [request.challengeId, request.now, request.payTo, request.network]);
    if (consumed.rowCount === 0) return unavailableReason(tx, request);

    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('gateway_pay_to:' || $1, 0))`, [request.payTo]);
    const { rows } = await tx.query<PayToRow>(`SELECT ${payToColumns} FROM gateway_pay_tos WHERE address = $1`, [request.payTo]);
    const existing = rows[0];
    if (existing?.status === 'retired') return { kind: 'payto_retired' };

    const { mode } = request;
    if (mode.kind === 'attach') {
      if (existing === undefined) {
        await insertPayTo(tx, request, mode.merchantId);
        return { kind: 'attached', merchantId: mode.merchantId };
      }
      return existing.merchant_id === mode.merchantId ? { kind: 'already_attached', merchantId: mode.merchantId } : { kind: 'payto_taken' };
    }
    if (existing === undefined) return createMerchant(tx, request, mode);
    return recoverMerchant(tx, request, mode, existing.merchant_id);
  });
}
