import * as v from 'valibot';
import { isHexId, randomId } from '../../../crypto/random';
import { AdminError } from '../../../errors/admin';
import type { SqlClient } from '../../../storage/sql-client';
import { adminOperation, type AdminOperation } from '../admin-operation';
import { pageOf, parseAdminInput, parseAdminPage, requireVendorProduct } from '../admin-input';
import { accountPasswordProblem, hashAccountPassword } from '../../model/accounts/account-password';
import { createSqlAccountStore, normalizeAccountEmail, type AccountRecord, type AccountStore } from '../../model/accounts/account-store';

/** `max_devices` bounds and the default of a new account (docs/decisions.md "License: accounts"). */
export const accountMaxDevices = { min: 1, max: 1000, default: 5 } as const;

const maxEmailLength = 254;

const productIdSchema = v.pipe(
  v.string('product_id must be a string'),
  v.check((id) => isHexId(id, 16), 'product_id must be 32 lowercase hex digits'),
);

// RFC 5321 caps a path at 256 octets, so an address is at most 254; the rfcEmail pattern (the HTML
// form rule) is ASCII, so lower-casing in JavaScript and PostgreSQL agree.
const emailSchema = v.pipe(
  v.string('email must be a string'),
  v.transform(normalizeAccountEmail),
  v.maxLength(maxEmailLength, `email must be at most ${maxEmailLength} characters`),
  v.rfcEmail('email must be an email address'),
);

// Every message here is fixed text: valibot's defaults quote the received value, and a password must
// never be echoed (not even a wrongly typed one).
const passwordSchema = v.pipe(
  v.string('password must be a string'),
  v.rawCheck(({ dataset, addIssue }) => {
    const problem = dataset.typed ? accountPasswordProblem(dataset.value) : undefined;
    if (problem !== undefined) addIssue({ message: `password ${problem}` });
  }),
);

const createAccountSchema = v.strictObject(
  {
    product_id: productIdSchema,
    email: emailSchema,
    password: passwordSchema,
    max_devices: v.optional(
      v.pipe(
        v.number('max_devices must be a number'),
        v.integer('max_devices must be a whole number'),
        v.minValue(accountMaxDevices.min, `max_devices must be at least ${accountMaxDevices.min}`),
        v.maxValue(accountMaxDevices.max, `max_devices must be at most ${accountMaxDevices.max}`),
      ),
      accountMaxDevices.default,
    ),
  },
  'the body must be an object with product_id, email, password and optionally max_devices, and nothing else',
);

const listAccountsQuerySchema = v.object({
  product_id: v.optional(productIdSchema),
  email: v.optional(v.pipe(v.string(), v.transform(normalizeAccountEmail))),
});

/**
 * Validates a create body and hashes its password: the slow part of `POST /accounts`, run as the
 * operation's `prepare`. The plaintext password does not outlive this function.
 */
async function prepareAccount(body: unknown): Promise<{ input: Omit<v.InferOutput<typeof createAccountSchema>, 'password'>; passwordHash: string }> {
  const { password, ...input } = parseAdminInput(createAccountSchema, body);
  return { input, passwordHash: await hashAccountPassword(password) };
}

/** The Admin view of an account: never its password hash. */
function accountView(account: AccountRecord) {
  return {
    account_id: account.accountId,
    product_id: account.productId,
    email: account.email,
    max_devices: account.maxDevices,
    status: account.status,
    created_at: account.createdAt.toISOString(),
    updated_at: account.updatedAt.toISOString(),
  };
}

/**
 * `GET` and `POST /v1/admin/accounts` (scope `accounts:rw`): the end-user accounts of the vendor's
 * products.
 *
 * - `POST` takes `{ product_id, email, password, max_devices? }` and answers 201 `{ account }`. The email
 *   is stored trimmed and lower-cased and is unique per product (409 `account_exists`); the password
 *   (8 to 1024 characters after NFKC) is stored only as a scrypt hash and never echoed, logged or
 *   audited. `max_devices` is 1 to 1000 (default 5). Another
 *   vendor's product is 404 `not_found`.
 * - `GET` lists the vendor's accounts newest first, filtered by `product_id` and `email` (compared
 *   normalised), with `limit` and `cursor`; it answers `{ accounts, next_cursor }`.
 *
 * @param accounts - The account store to read and write through (rebuilt over the call's transaction).
 * @returns The operations.
 * @example
 * ```ts
 * import { accountOperations, createLicenseAdminApi } from '@tollgate/core/license';
 * const admin = createLicenseAdminApi({ ...options, operations: [...accountOperations()] });
 * ```
 */
export function accountOperations(accounts: (sql: SqlClient) => AccountStore = createSqlAccountStore): AdminOperation[] {
  return [
    adminOperation({
      method: 'GET',
      path: '/accounts',
      docs: { summary: 'Lists the accounts of a product (email filter).', query: listAccountsQuerySchema, paged: true },
      scopes: ['accounts:rw'],
      kind: 'read',
      run: async (call) => {
        const page = parseAdminPage(call.query);
        const filters = parseAdminInput(listAccountsQuerySchema, call.query);
        if (filters.product_id !== undefined) await requireVendorProduct(call.sql, call.actor.vendorId, filters.product_id);
        const rows = await accounts(call.sql).list(call.actor.vendorId, {
          limit: page.limit + 1,
          ...(page.after === undefined ? {} : { after: page.after }),
          ...(filters.product_id === undefined ? {} : { productId: filters.product_id }),
          ...(filters.email === undefined ? {} : { email: filters.email }),
        });
        const { items, nextCursor } = pageOf(rows, page.limit, (row) => ({ at: row.createdAt.getTime(), id: row.accountId }));
        return { body: { accounts: items.map(accountView), next_cursor: nextCursor } };
      },
    }),
    adminOperation({
      method: 'POST',
      path: '/accounts',
      docs: { summary: 'Creates an end-user account (email and password) of a product.', body: createAccountSchema, status: 201, errors: ['account_exists'] },
      scopes: ['accounts:rw'],
      kind: 'mutation',
      // The KDF runs here, before the journal's transaction opens: no connection or lock waits for it.
      prepare: (call) => prepareAccount(call.body),
      run: async (call) => {
        const { input, passwordHash } = call.prepared;
        const outcome = await accounts(call.sql).create({
          accountId: randomId(),
          vendorId: call.actor.vendorId,
          productId: input.product_id,
          email: input.email,
          passwordHash,
          maxDevices: input.max_devices,
          createdAt: call.now,
        });
        if (outcome.kind === 'product_not_found') throw new AdminError('not_found', 'No such product.');
        if (outcome.kind === 'email_taken') throw new AdminError('account_exists', 'This product already has an account with this email.');
        const { account } = outcome;
        // The email stays out of the audit chain: audit events outlive data-subject erasure.
        await call.audit({ action: 'account.create', targetType: 'account', targetId: account.accountId, summary: { product_id: account.productId, max_devices: account.maxDevices } });
        return { status: 201, body: { account: accountView(account) } };
      },
    }),
  ];
}
