import { GatewayError } from '../errors/gateway';
import { sealedCursor } from './sealed-cursor';

/**
 * Keyset cursors of the gateway's newest-first lists (`GET /ref`, `GET /order`): sealed cursors
 * (`./sealed-cursor`: `base64url(payload) "." base64url(tag)`, HMAC-SHA-256 under the gateway's cursor
 * key over `domain NUL payload`) whose payload is JSON `{ v: 1, <scope keys…>, t: createdAtMs, i: id }`.
 * Each list has its own domain, so one list's cursor never decodes as another's even under the same key,
 * and its own scope (merchant plus the list's filters), so a cursor only continues the very list it came
 * from.
 *
 * @module
 */

/** Where the next page starts: strictly older than this `(createdAt, id)`. */
export interface ListCursorPosition {
  readonly createdAtMs: number;
  readonly id: string;
}

/** What a list's cursors look like. */
export interface ListCursorFormat<Scope extends Readonly<Record<keyof Scope, string>>> {
  /** The MAC domain, e.g. `tollgate/ref-cursor/v1`; one per list. */
  readonly domain: string;
  /**
   * The payload key of each scope field, e.g. `{ merchantId: 'm', payTo: 'p' }`. Written in this order
   * after `v`, so the order is part of the cursor bytes; `v`, `t` and `i` are taken.
   */
  readonly scopeKeys: { readonly [Field in keyof Scope]: string };
  /** What must stay the same, ending the refusal message: `…pass nextCursor unchanged, with the same <hint>.` */
  readonly hint: string;
}

/** A list's cursor codec, from {@link listCursor}. */
export interface ListCursor<Scope extends Readonly<Record<keyof Scope, string>>> {
  /** Encodes the last item of a page as the cursor of the next page of the same scope. */
  encode(key: Uint8Array, scope: Scope, position: ListCursorPosition): string;
  /**
   * Decodes a cursor made by `encode` for the same scope and key; anything else (an altered character, another
   * scope, key or list, padding, garbage) is refused.
   *
   * @throws GatewayError `invalid_request` (`details.field: 'cursor'`).
   */
  decode(key: Uint8Array, scope: Scope, cursor: string): ListCursorPosition;
}

// Longest payload a list cursor opens (base64url characters): scopes and ids are short.
const maxPayloadChars = 900;
const reservedKeys = new Set(['v', 't', 'i']);

/**
 * Defines the cursor codec of one list.
 *
 * @param format - The list's domain, scope keys and refusal hint.
 * @returns Its `encode` and `decode`.
 * @throws TypeError when a scope key is reserved or repeated (a definition bug).
 * @example
 * ```ts
 * const refCursor = listCursor<{ merchantId: string; payTo: string }>({ domain: 'tollgate/ref-cursor/v1', scopeKeys: { merchantId: 'm', payTo: 'p' }, hint: 'pay_to' });
 * const next = refCursor.encode(keys.cursor, { merchantId, payTo }, { createdAtMs: last.createdAt.getTime(), id: last.id });
 * const { createdAtMs, id } = refCursor.decode(keys.cursor, { merchantId, payTo }, next);
 * ```
 */
export function listCursor<Scope extends Readonly<Record<keyof Scope, string>>>(format: ListCursorFormat<Scope>): ListCursor<Scope> {
  const scopeEntries = Object.entries(format.scopeKeys) as [keyof Scope & string, string][];
  const payloadKeys = scopeEntries.map(([, payloadKey]) => payloadKey);
  if (payloadKeys.some((payloadKey) => reservedKeys.has(payloadKey)) || new Set(payloadKeys).size !== payloadKeys.length) {
    throw new TypeError(`The scope keys of ${format.domain} must be distinct and not v, t or i.`);
  }
  const sealed = sealedCursor(format.domain, maxPayloadChars);
  const message = `The cursor is not valid for this list: pass nextCursor unchanged, with the same ${format.hint}.`;
  const invalidCursor = () => new GatewayError('invalid_request', message, { details: { field: 'cursor' } });

  return {
    encode(key, scope, position) {
      const fields: Record<string, unknown> = { v: 1 };
      for (const [field, payloadKey] of scopeEntries) fields[payloadKey] = scope[field];
      fields['t'] = position.createdAtMs;
      fields['i'] = position.id;
      return sealed.seal(key, fields);
    },

    decode(key, scope, cursor) {
      const parsed = sealed.open(key, cursor);
      if (typeof parsed !== 'object' || parsed === null) throw invalidCursor();
      const fields = parsed as Record<string, unknown>;
      const { v, t, i } = fields;
      if (v !== 1 || typeof t !== 'number' || !Number.isSafeInteger(t) || typeof i !== 'string') throw invalidCursor();
      if (scopeEntries.some(([field, payloadKey]) => fields[payloadKey] !== scope[field])) throw invalidCursor();
      return { createdAtMs: t, id: i };
    },
  };
}

/** A page of a newest-first list and, unless it is the last, the cursor of the next one. */
export interface ListPage<Item> {
  readonly items: Item[];
  readonly nextCursor?: string;
}

/**
 * Reads one page of a keyset list: decodes the request's cursor for this scope (refusing any other),
 * reads one row more than the page so a next page is known without a count, and encodes the next
 * cursor from the page's last row.
 *
 * @param params - The list's codec, the cursor key, the scope, the request's `cursor` and `limit`, how to
 *   read rows (newest first, strictly older than `before`), and how to show one.
 * @returns The page.
 * @throws GatewayError `invalid_request` (`details.field: 'cursor'`) for a cursor this list did not issue.
 * @example
 * ```ts
 * const page = await readListPage({
 *   cursor: refListCursor, key: keys.cursor, scope, request: query,
 *   read: (limit, before) => refs.listRefs({ ...scope, limit, ...(before === undefined ? {} : { before: { createdAt: before.createdAt, refId: before.id } }) }),
 *   item: listItem,
 * });
 * ```
 */
export async function readListPage<Scope extends Readonly<Record<keyof Scope, string>>, Row extends { readonly id: string; readonly createdAt: Date }, Item>(params: {
  readonly cursor: ListCursor<Scope>;
  readonly key: Uint8Array;
  readonly scope: Scope;
  readonly request: { readonly cursor?: string | undefined; readonly limit: number };
  readonly read: (limit: number, before: { readonly createdAt: Date; readonly id: string } | undefined) => Promise<readonly Row[]>;
  readonly item: (row: Row) => Item;
}): Promise<ListPage<Item>> {
  const { cursor, key, scope, request } = params;
  const position = request.cursor === undefined ? undefined : cursor.decode(key, scope, request.cursor);
  const rows = await params.read(request.limit + 1, position === undefined ? undefined : { createdAt: new Date(position.createdAtMs), id: position.id });
  const page = rows.slice(0, request.limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > request.limit && last !== undefined ? cursor.encode(key, scope, { createdAtMs: last.createdAt.getTime(), id: last.id }) : undefined;
  return { items: page.map(params.item), ...(nextCursor === undefined ? {} : { nextCursor }) };
}
