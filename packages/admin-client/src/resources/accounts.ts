import * as v from 'valibot';
import type { AdminList, AdminTransport, MutationOptions, ReadOptions } from '../transport-types';

/** An end-user account of a product as the server shows it (never its password or hash). */
export const accountSchema = v.looseObject({
  account_id: v.string(),
  product_id: v.string(),
  /** Stored trimmed and lower-cased. */
  email: v.string(),
  max_devices: v.number(),
  /** `active` or `revoked`. */
  status: v.string(),
  created_at: v.string(),
  updated_at: v.string(),
});
/** An account. */
export type Account = v.InferOutput<typeof accountSchema>;

/** The query of `accounts.list`: every filter optional. */
export interface AccountListQuery {
  readonly productId?: string;
  /** Compared normalised (trimmed, lower-cased). */
  readonly email?: string;
  /** Page size, 1 to 200 (server default 50). */
  readonly limit?: number;
}

/** What `accounts.create` takes. */
export interface AccountCreateInput {
  readonly productId: string;
  /** Unique per product (409 `account_exists`). */
  readonly email: string;
  /** 8 to 1024 characters; the server stores only a scrypt hash and never echoes it. */
  readonly password: string;
  /** 1 to 1000 (default 5). */
  readonly maxDevices?: number;
}

/** The `accounts` group. */
export interface AccountsResource {
  /**
   * Lists the vendor's accounts, newest first (`GET /accounts`), every page on demand.
   *
   * @example `for await (const account of admin.accounts.list({ productId })) console.log(account.email);`
   */
  list(query?: AccountListQuery, options?: ReadOptions): AdminList<Account>;
  /**
   * Creates an account (`POST /accounts`, 201); an email the product already has is 409 `account_exists`.
   *
   * @example `const account = await admin.accounts.create({ productId, email: 'ada@example.com', password });`
   */
  create(input: AccountCreateInput, options?: MutationOptions): Promise<Account>;
}

const accountAnswerSchema = v.pipe(v.looseObject({ account: accountSchema }), v.transform((answer) => answer.account));

/**
 * Builds the `accounts` group on a transport.
 *
 * @param transport - The client's transport.
 * @returns The group.
 * @example
 * ```ts
 * const accounts = createAccountsResource(transport);
 * const { account_id } = await accounts.create({ productId, email: 'ada@example.com', password });
 * ```
 */
export function createAccountsResource(transport: AdminTransport): AccountsResource {
  return {
    list: (query = {}, options) =>
      transport.list({ path: '/accounts', query: { product_id: query.productId, email: query.email, limit: query.limit }, itemsKey: 'accounts', itemSchema: accountSchema, options }),
    create: async (input, options) => {
      const body = { product_id: input.productId, email: input.email, password: input.password, max_devices: input.maxDevices };
      return (await transport.request({ method: 'POST', path: '/accounts', kind: 'mutation', body, schema: accountAnswerSchema, options })).body;
    },
  };
}
