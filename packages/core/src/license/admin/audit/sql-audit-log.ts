import * as v from 'valibot';
import { base64Decode, base64UrlEncode } from '../../../crypto/base64';
import { hexDecode, hexEncode } from '../../../crypto/hex';
import { isHexId } from '../../../crypto/random';
import { utf8Decode, utf8Encode } from '../../../crypto/utf8';
import { AdminError } from '../../../errors/admin';
import type { SqlClient } from '../../../storage/sql-client';
import { auditEventHash, auditGenesisHash, auditSummaryJson, redactAuditSummary, verifyAuditChain, type AuditChainLink } from './audit-chain';
import type { AuditEvent, AuditEventInput, AuditLog, AuditVerification } from './audit-log';

/** Most events one `verify` checks (license spec, "Limits"). */
const maxVerifyEvents = 10_000;
/** Page bounds of `list`. */
const maxListLimit = 200;
/** Largest stored summary (canonical JSON, UTF-8): the Admin body limit, which no summary outgrows. */
const maxSummaryBytes = 256 * 1024;

const printable = (max: number) => v.pipe(v.string(), v.regex(new RegExp(`^[\\x21-\\x7e]{1,${max}}$`)));
const eventInputSchema = v.object({
  vendorId: v.custom<string>((value) => isHexId(value, 16), 'a vendor id is 32 lower-case hex digits'),
  actor: printable(128),
  action: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_.-]{0,63}$/)),
  // The same shape as the list filter of GET /v1/admin/audit, so every stored target can be filtered on.
  targetType: v.pipe(v.string(), v.regex(/^[a-z_]{1,40}$/)),
  targetId: printable(128),
  summary: v.record(v.string(), v.unknown()),
});

type EventRow = {
  vendor_id: string;
  seq: string;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  summary: string;
  at_ms: string;
  prev_hash: Uint8Array;
  hash: Uint8Array;
};

// `at` read as exact decimal milliseconds: a timestamp moved by a fraction of a millisecond then shows as
// a fractional value, which no longer hashes to the stored hash.
const eventColumns = `vendor_id, seq, actor, action, target_type, target_id, summary, extract(epoch FROM at) * 1000 AS at_ms, prev_hash, hash`;

function linkOf(row: EventRow): AuditChainLink {
  return {
    vendorId: row.vendor_id,
    seq: Number(row.seq),
    actor: row.actor,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    summaryJson: row.summary,
    at: Number(row.at_ms),
    prevHash: hexEncode(row.prev_hash),
    hash: hexEncode(row.hash),
  };
}

function parseSummary(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Only a row changed behind the service's back holds bad JSON; list it rather than fail the page.
  }
  return { unparseable_summary: text };
}

function eventOf(row: EventRow): AuditEvent {
  const { summaryJson, ...link } = linkOf(row);
  return { ...link, summary: parseSummary(summaryJson) };
}

function encodeCursor(seq: number): string {
  return base64UrlEncode(utf8Encode(String(seq)));
}

function decodeCursor(cursor: string): number {
  const refuse = () => new AdminError('invalid_request', 'cursor is not a cursor this API returned.');
  if (!/^[A-Za-z0-9_-]{1,24}$/.test(cursor)) throw refuse();
  let text: string;
  try {
    text = utf8Decode(base64Decode(cursor));
  } catch {
    throw refuse();
  }
  if (!/^[1-9][0-9]{0,15}$/.test(text) || !Number.isSafeInteger(Number(text))) throw refuse();
  return Number(text);
}

async function append(tx: SqlClient, input: AuditEventInput, at: number): Promise<AuditEvent> {
  const parsed = v.safeParse(eventInputSchema, input);
  if (!parsed.success) throw new TypeError(`Invalid audit event: ${parsed.issues.map((issue) => `${v.getDotPath(issue) ?? 'event'} ${issue.message}`).join('; ')}.`);
  if (!Number.isSafeInteger(at) || at < 0) throw new TypeError('An audit event time is whole milliseconds since the epoch.');
  const summary = redactAuditSummary(input.summary);
  const summaryJson = auditSummaryJson(summary);
  if (utf8Encode(summaryJson).length > maxSummaryBytes) throw new TypeError(`An audit summary is at most ${maxSummaryBytes} bytes of JSON.`);
  // The no-op update takes the head row's lock until `tx` ends: concurrent appenders of this vendor wait
  // here and then read the head this one leaves, so seqs never repeat and the chain never forks.
  const { rows } = await tx.query<{ seq: string; hash: Uint8Array }>(
    `INSERT INTO license_audit_heads AS head (vendor_id, seq, hash) VALUES ($1, 0, $2)
     ON CONFLICT (vendor_id) DO UPDATE SET seq = head.seq RETURNING seq, hash`,
    [input.vendorId, hexDecode(auditGenesisHash)],
  );
  const head = rows[0] as { seq: string; hash: Uint8Array };
  const fields = {
    vendorId: input.vendorId,
    seq: Number(head.seq) + 1,
    actor: input.actor,
    action: input.action,
    targetType: input.targetType,
    targetId: input.targetId,
    summaryJson,
    at,
    prevHash: hexEncode(head.hash),
  };
  const hash = auditEventHash(fields);
  await tx.query(
    `INSERT INTO license_audit_events (vendor_id, seq, actor, action, target_type, target_id, summary, at, prev_hash, hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [fields.vendorId, fields.seq, fields.actor, fields.action, fields.targetType, fields.targetId, summaryJson, new Date(at), head.hash, hexDecode(hash)],
  );
  await tx.query('UPDATE license_audit_heads SET seq = $2, hash = $3 WHERE vendor_id = $1', [fields.vendorId, fields.seq, hexDecode(hash)]);
  const { summaryJson: _stored, ...event } = fields;
  return { ...event, summary, hash };
}

/**
 * The audit log over SQL (`licenseMigrations` 004): events in `license_audit_events`, one head row per
 * vendor in `license_audit_heads`.
 *
 * - `append(tx, event, at)` validates the event (a `TypeError` for a malformed one: callers are
 *   service code, not users), redacts the summary (`redactAuditSummary`), locks the vendor's head with
 *   an upsert, and writes the event and the new head in `tx`. Concurrent appends of one vendor
 *   serialise on that lock, so seqs run 1, 2, 3… without gaps or forks.
 * - `list` is newest first, optionally for one target type and/or id; `limit` 1 to 200; `nextCursor` is
 *   an opaque base64url token (of the last seq on the page; lists are vendor-scoped, so it carries no
 *   authority). A malformed cursor or limit → `AdminError('invalid_request')`.
 * - `verify` reads the head and up to `limit` events (clamped to 1..10,000) from `fromSeq` (default 1)
 *   in one `REPEATABLE READ READ ONLY` transaction, so concurrent appends never make an intact chain look
 *   broken, and checks them with `verifyAuditChain` (see there for `first_broken`). A `fromSeq` that is
 *   not a positive integer → `AdminError('invalid_request')`.
 *
 * @param sql - A database with `licenseMigrations` applied.
 * @returns The audit log.
 * @example
 * ```ts
 * import { createSqlAuditLog } from '@tollgate/core/license';
 * const audit = createSqlAuditLog(sql);
 * await sql.transaction((tx) => audit.append(tx, { vendorId, actor: tokenId, action: 'license.revoke', targetType: 'license', targetId, summary: { reason: 2 } }, Date.now()));
 * const { verified, first_broken } = await audit.verify(vendorId);
 * ```
 */
export function createSqlAuditLog(sql: SqlClient): AuditLog {
  return {
    append,

    async list(vendorId, options) {
      if (!Number.isSafeInteger(options.limit) || options.limit < 1 || options.limit > maxListLimit) {
        throw new AdminError('invalid_request', `limit must be a whole number from 1 to ${maxListLimit}.`);
      }
      const before = options.cursor === undefined ? null : decodeCursor(options.cursor);
      const { rows } = await sql.query<EventRow>(
        `SELECT ${eventColumns} FROM license_audit_events
         WHERE vendor_id = $1 AND ($2::text IS NULL OR target_type = $2) AND ($3::text IS NULL OR target_id = $3) AND ($4::bigint IS NULL OR seq < $4)
         ORDER BY seq DESC LIMIT $5`,
        [vendorId, options.targetType ?? null, options.targetId ?? null, before, options.limit + 1],
      );
      const page = rows.slice(0, options.limit).map(eventOf);
      const last = page.at(-1);
      return { events: page, nextCursor: rows.length > options.limit && last !== undefined ? encodeCursor(last.seq) : null };
    },

    async verify(vendorId, options = {}): Promise<AuditVerification> {
      const fromSeq = options.fromSeq ?? 1;
      if (!Number.isSafeInteger(fromSeq) || fromSeq < 1) throw new AdminError('invalid_request', 'from_seq must be a positive whole number.');
      const requested = options.limit ?? maxVerifyEvents;
      const limit = Number.isSafeInteger(requested) ? Math.min(Math.max(requested, 1), maxVerifyEvents) : maxVerifyEvents;
      return sql.transaction(
        async (tx) => {
          const heads = await tx.query<{ seq: string; hash: Uint8Array }>('SELECT seq, hash FROM license_audit_heads WHERE vendor_id = $1', [vendorId]);
          const headRow = heads.rows[0];
          let prevHash: string | null = auditGenesisHash;
          if (fromSeq > 1) {
            const previous = await tx.query<{ hash: Uint8Array }>('SELECT hash FROM license_audit_events WHERE vendor_id = $1 AND seq = $2', [vendorId, fromSeq - 1]);
            prevHash = previous.rows[0] === undefined ? null : hexEncode(previous.rows[0].hash);
          }
          const { rows } = await tx.query<EventRow>(`SELECT ${eventColumns} FROM license_audit_events WHERE vendor_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3`, [
            vendorId,
            fromSeq,
            limit,
          ]);
          const head = headRow === undefined ? null : { seq: Number(headRow.seq), hash: hexEncode(headRow.hash) };
          return verifyAuditChain(rows.map(linkOf), { fromSeq, prevHash, head, limit });
        },
        { isolationLevel: 'repeatable read', readOnly: true },
      );
    },
  };
}
