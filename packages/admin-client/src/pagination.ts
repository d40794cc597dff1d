/**
 * Cursor pagination: an {@link AdminList} reads pages lazily (`limit` and `cursor` in the query,
 * `next_cursor` in the answer) and iterates their items.
 *
 * @module
 */
import * as v from 'valibot';
import { AdminResponseError } from './errors';
import type { AdminList, AdminPage, AdminRequest, AdminResponse, ReadOptions } from './transport-types';

/** What `transport.list` takes (see `AdminTransport.list`). */
export interface AdminListRequest<T> {
  readonly path: string;
  readonly query?: AdminRequest<T>['query'];
  readonly itemsKey: string;
  readonly itemSchema: v.GenericSchema<unknown, T>;
  readonly options?: ReadOptions;
}

/** Sends one validated request (the transport's `request`). */
export type SendRequest = <T>(request: AdminRequest<T>) => Promise<AdminResponse<T>>;

/**
 * Builds a lazy paginated list over `GET request.path`.
 *
 * @param send - The transport's `request`.
 * @param request - Path, query, the answer's array key and the item schema.
 * @returns The list: `page(cursor?)` reads one page, `for await` walks all of them.
 */
export function createAdminList<T>(send: SendRequest, request: AdminListRequest<T>): AdminList<T> {
  const pageSchema = v.looseObject({
    [request.itemsKey]: v.array(request.itemSchema),
    next_cursor: v.optional(v.nullable(v.string()), null),
  }) as v.GenericSchema<unknown, Record<string, unknown> & { next_cursor: string | null }>;

  async function page(cursor?: string | null): Promise<AdminPage<T>> {
    const answer = await send({
      method: 'GET',
      path: request.path,
      kind: 'read',
      query: { ...request.query, cursor: cursor ?? undefined },
      schema: pageSchema,
      ...(request.options === undefined ? {} : { options: request.options }),
    });
    return { items: answer.body[request.itemsKey] as T[], nextCursor: answer.body.next_cursor };
  }

  return {
    page,
    async *[Symbol.asyncIterator]() {
      const seen = new Set<string>();
      let cursor: string | null = null;
      do {
        const current: AdminPage<T> = await page(cursor);
        yield* current.items;
        cursor = current.nextCursor;
        // A server handing back a cursor it already gave would loop forever: refuse it instead.
        if (cursor !== null) {
          if (seen.has(cursor)) throw new AdminResponseError('invalid_response', `The server repeated the cursor of ${request.path}; stopping instead of looping.`, 200, undefined);
          seen.add(cursor);
        }
      } while (cursor !== null);
    },
  };
}
