import type * as v from 'valibot';

/** How a call changes state, mirroring the server's operation kinds (license spec, Admin API). */
export type AdminCallKind = 'read' | 'mutation' | 'destructive';

/** Per-call options every mutation accepts. */
export interface MutationOptions {
  /** The `Idempotency-Key` to send; one is generated per call (and reused across this client's retries) when absent. */
  readonly idempotencyKey?: string;
  /** Aborts the call (and its retries). */
  readonly signal?: AbortSignal;
}

/** Per-call options of destructive calls: a dry run unless `dryRun: false`. */
export interface DestructiveOptions extends MutationOptions {
  /** `true` (the default) previews and changes nothing; `false` confirms and executes. */
  readonly dryRun?: boolean;
}

/** Per-call options of reads. */
export interface ReadOptions {
  readonly signal?: AbortSignal;
}

/** One request the transport sends: a path under `/v1/admin`, already built with encoded path ids. */
export interface AdminRequest<T> {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** E.g. `/licenses/${encodeURIComponent(id)}/revoke`. */
  readonly path: string;
  readonly kind: AdminCallKind;
  /** Query parameters; `undefined` values are left out. */
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** A JSON body. */
  readonly body?: unknown;
  /** A raw body instead of JSON (`POST /integrity/sign`), sent as `contentType` (default `application/octet-stream`). */
  readonly rawBody?: Uint8Array;
  readonly contentType?: string;
  /** The valibot schema the JSON answer must satisfy (validation failure is an `AdminResponseError`). */
  readonly schema: v.GenericSchema<unknown, T>;
  /** Mutation / destructive options (idempotency key, dry run) and read options (signal). */
  readonly options?: DestructiveOptions | ReadOptions;
}

/** A validated answer. */
export interface AdminResponse<T> {
  readonly status: number;
  readonly body: T;
  /** Response headers (lower-case names). */
  readonly headers: Readonly<Record<string, string>>;
  /** The server's request id (`x-request-id`), when it sent one. */
  readonly requestId: string | undefined;
}

/** A raw (non-JSON) answer, read under the client's `maxResponseBytes`. */
export interface AdminBytesResponse {
  readonly status: number;
  readonly bytes: Uint8Array;
  readonly headers: Readonly<Record<string, string>>;
  readonly requestId: string | undefined;
}

/** One page of a cursor-paginated list. */
export interface AdminPage<T> {
  readonly items: readonly T[];
  /** Pass to the next `page()` call; `null` on the last page. */
  readonly nextCursor: string | null;
}

/**
 * A paginated list: `for await (const item of list)` walks every page lazily; `page(cursor?)` reads one.
 */
export interface AdminList<T> extends AsyncIterable<T> {
  page(cursor?: string | null): Promise<AdminPage<T>>;
}

/** What every resource group is built on (implemented by `createTransport` in transport.ts). */
export interface AdminTransport {
  /** Sends one JSON request (retries, idempotency key, dry run, size cap, validation, typed errors). */
  request<T>(request: AdminRequest<T>): Promise<AdminResponse<T>>;
  /** Sends one request whose answer is raw bytes (e.g. the integrity signature), under the size cap. */
  requestBytes(request: Omit<AdminRequest<unknown>, 'schema'>): Promise<AdminBytesResponse>;
  /**
   * Sends one request whose answer is a stream of text lines (NDJSON or CSV export), yielding each line
   * without buffering the body; the size cap applies to the whole stream.
   */
  requestLines(request: Omit<AdminRequest<unknown>, 'schema'>): AsyncIterable<string>;
  /**
   * A cursor-paginated list over `GET path`: `itemsKey` names the array in the answer (e.g. `licenses`),
   * `next_cursor` is read from it, `cursor` / `limit` go in the query.
   */
  list<T>(request: { readonly path: string; readonly query?: AdminRequest<T>['query']; readonly itemsKey: string; readonly itemSchema: v.GenericSchema<unknown, T>; readonly options?: ReadOptions }): AdminList<T>;
}
