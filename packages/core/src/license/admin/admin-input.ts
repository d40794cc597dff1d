import * as v from 'valibot';
import { base64Decode, base64UrlEncode } from '../../crypto/base64';
import { isHexId } from '../../crypto/random';
import { utf8Decode, utf8Encode } from '../../crypto/utf8';
import { AdminError } from '../../errors/admin';
import type { SqlClient } from '../../storage/sql-client';
import type { AdminCursorPosition, AdminPage } from '../model/page';

/**
 * Validates an Admin body or query with a valibot schema, or refuses it with 400 `invalid_request`
 * whose message names up to three offending fields, so an operator fixes them at once.
 *
 * @param schema - The schema.
 * @param input - The parsed body or query.
 * @returns The validated output.
 * @throws AdminError `invalid_request`.
 * @example
 * ```ts
 * import * as v from 'valibot';
 * import { parseAdminInput } from '@tollgate/core/license';
 * const { tier } = parseAdminInput(v.strictObject({ tier: v.string() }), request.body);
 * ```
 */
export function parseAdminInput<Schema extends v.GenericSchema>(schema: Schema, input: unknown): v.InferOutput<Schema> {
  // Every Admin body and query is a JSON object; valibot's object schemas would take an array as one.
  if (Array.isArray(input)) throw new AdminError('invalid_request', 'Invalid request. body: a JSON object, not an array.');
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const problems = result.issues.slice(0, 3).map((issue) => `${v.getDotPath(issue) ?? (input === undefined ? 'body' : 'request')}: ${issue.message}`);
  throw new AdminError('invalid_request', `Invalid request. ${problems.join('; ')}.`);
}

/**
 * Checks a path id: `bytes` bytes as lowercase hex (license and machine ids 16 bytes, epoch ids 8). A
 * malformed id names nothing that exists, so it is `not_found`, exactly like another vendor's id.
 *
 * @param value - The path parameter.
 * @param what - What it names, for the message.
 * @param bytes - Its length in bytes (16 by default).
 * @returns The id.
 * @throws AdminError `not_found`.
 * @example
 * ```ts
 * import { adminPathId } from '@tollgate/core/license';
 * const licenseId = adminPathId(call.params.licenseId, 'license');
 * ```
 */
export function adminPathId(value: string | undefined, what: string, bytes = 16): string {
  if (!isHexId(value, bytes)) throw new AdminError('not_found', `No such ${what}.`);
  return value;
}

// The page types belong to the domain model's stores, which list with them; the Admin API parses them here.
export type { AdminCursorPosition, AdminPage } from '../model/page';

/** Page-size bounds of every Admin list (the spec leaves them open; docs/decisions.md). */
export const adminPageSize = { default: 50, max: 200 } as const;

/**
 * Reads `limit` and `cursor` from a list query. `limit` is 1 to `max` (default 50, max 200); `cursor`
 * is what a previous page returned as `next_cursor`.
 *
 * @param query - The request query.
 * @param max - The largest page (200 unless the route allows more).
 * @returns The page.
 * @throws AdminError `invalid_request` for a bad limit or cursor.
 * @example
 * ```ts
 * import { parseAdminPage } from '@tollgate/core/license';
 * const page = parseAdminPage(call.query);
 * ```
 */
export function parseAdminPage(query: Readonly<Record<string, string>>, max: number = adminPageSize.max): AdminPage {
  const limitText = query['limit'];
  let limit: number = Math.min(adminPageSize.default, max);
  if (limitText !== undefined) {
    if (!/^[1-9][0-9]{0,5}$/.test(limitText) || Number(limitText) > max) throw new AdminError('invalid_request', `limit must be a whole number from 1 to ${max}.`);
    limit = Number(limitText);
  }
  const cursor = query['cursor'];
  return { limit, after: cursor === undefined ? undefined : decodeAdminCursor(cursor) };
}

/**
 * Encodes a keyset position as an opaque cursor (base64url). Cursors carry no authority: every list
 * query is scoped to the caller's vendor, so a forged cursor only moves within the caller's own data.
 *
 * @param position - The last item of the page.
 * @returns The cursor.
 * @example
 * ```ts
 * import { encodeAdminCursor } from '@tollgate/core/license';
 * const next = encodeAdminCursor({ at: row.createdAt.getTime(), id: row.licenseId });
 * ```
 */
export function encodeAdminCursor(position: AdminCursorPosition): string {
  return base64UrlEncode(utf8Encode(`${position.at}.${position.id}`));
}

function decodeAdminCursor(cursor: string): AdminCursorPosition {
  const refuse = () => new AdminError('invalid_request', 'cursor is not a cursor this API returned.');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw refuse();
  let text: string;
  try {
    text = utf8Decode(base64Decode(cursor));
  } catch {
    throw refuse();
  }
  const match = /^(0|[1-9][0-9]{0,15})\.([0-9a-z._-]{1,64})$/.exec(text);
  // The largest time a Date can hold: anything beyond could not be bound as a timestamp.
  if (match === null || Number(match[1]) > 8_640_000_000_000_000) throw refuse();
  return { at: Number(match[1]), id: match[2] as string };
}

/**
 * The page of `rows` to return and its `next_cursor`: callers fetch `limit + 1` rows so a next page is
 * known without a count.
 *
 * @param rows - Up to `limit + 1` rows in list order.
 * @param limit - The page size.
 * @param positionOf - The keyset position of a row.
 * @returns The page items and the cursor of the next page (`null` on the last page).
 * @example
 * ```ts
 * import { pageOf } from '@tollgate/core/license';
 * const { items, nextCursor } = pageOf(rows, page.limit, (row) => ({ at: row.createdAt.getTime(), id: row.id }));
 * ```
 */
export function pageOf<Row>(rows: readonly Row[], limit: number, positionOf: (row: Row) => AdminCursorPosition): { items: Row[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last !== undefined ? encodeAdminCursor(positionOf(last)) : null };
}

/** Deepest JSON nesting an Admin body may have (the deepest valid document is a handful of levels). */
export const adminJsonMaxDepth = 32;

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function refuseText(text: string, where: string): void {
  if (text.includes('\u0000') || loneSurrogate.test(text)) {
    throw new AdminError('invalid_request', `${where} holds a NUL character or malformed Unicode (a lone surrogate).`);
  }
}

/**
 * Refuses what JSON can spell but no Admin field can hold, before anything hashes, canonicalises or
 * stores it: numbers that overflowed to infinity (`1e400`), nesting deeper than {@link adminJsonMaxDepth},
 * and strings or keys with NUL or lone surrogates (PostgreSQL refuses both in text and jsonb). Iterative,
 * so a 256 KiB body of brackets cannot exhaust the stack.
 *
 * @param body - The parsed JSON body (or `undefined`).
 * @param query - The decoded query parameters.
 * @throws AdminError `invalid_request` naming what was wrong.
 * @example
 * ```ts
 * import { assertAdminJson } from '@tollgate/core/license';
 * assertAdminJson(JSON.parse('{"count":1e400}'), {}); // throws invalid_request
 * ```
 */
export function assertAdminJson(body: unknown, query: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(query)) {
    refuseText(name, 'A query parameter name');
    refuseText(value, `Query parameter ${name}`);
  }
  const pending: { value: unknown; depth: number }[] = [{ value: body, depth: 0 }];
  while (pending.length > 0) {
    const { value, depth } = pending.pop() as { value: unknown; depth: number };
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new AdminError('invalid_request', 'The body holds a number too large to represent.');
    } else if (typeof value === 'string') {
      refuseText(value, 'A string in the body');
    } else if (typeof value === 'object' && value !== null) {
      if (depth >= adminJsonMaxDepth) throw new AdminError('invalid_request', `The body is nested deeper than ${adminJsonMaxDepth} levels.`);
      for (const [key, item] of Object.entries(value)) {
        refuseText(key, 'An object key in the body');
        pending.push({ value: item, depth: depth + 1 });
      }
    }
  }
}

/**
 * Refuses a list filter naming a product the caller's vendor does not have, exactly like a path target:
 * `404 not_found`, so a filter can never tell another vendor's product from a missing one (and every
 * list answers a foreign filter the same way).
 *
 * @param sql - The database.
 * @param vendorId - The caller's vendor.
 * @param productId - The `product_id` filter.
 * @throws AdminError `not_found`.
 * @example
 * ```ts
 * import { requireVendorProduct } from '@tollgate/core/license';
 * await requireVendorProduct(call.sql, call.actor.vendorId, filters.product_id);
 * ```
 */
export async function requireVendorProduct(sql: SqlClient, vendorId: string, productId: string): Promise<void> {
  const { rows } = await sql.query('SELECT 1 FROM license_products WHERE product_id = $1 AND vendor_id = $2', [productId, vendorId]);
  if (rows.length === 0) throw new AdminError('not_found', 'No such product.');
}
