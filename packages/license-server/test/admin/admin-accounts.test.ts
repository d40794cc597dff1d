import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminScopes, createProduct, verifyAccountPassword } from '@tollgate/core/license';
import { raceCase } from '@tollgate/core/testing';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { serverEngines } from '../helpers';

const password = 'Tr0ub4dor&3 horse';
let emailCounter = 0;
/** A fresh address, so cases never collide on the per-product uniqueness. */
const freshEmail = (prefix = 'user') => `${prefix}-${(emailCounter += 1)}-${Math.random().toString(36).slice(2, 8)}@example.com`;

for (const engine of serverEngines) {
  describe(`Admin accounts [${engine.name}]`, () => {
    let bench: AdminHarness;
    let productA: string;
    const create = (body: Record<string, unknown>, options: { token?: string; key?: string } = {}) =>
      bench.call('POST', '/accounts', { body, key: options.key ?? freshKey(), ...(options.token === undefined ? {} : { token: options.token }) });

    beforeAll(async () => {
      bench = await openAdminHarness(engine);
      productA = bench.vendorA.productId;
    });
    afterAll(() => bench?.close());

    it('creates an account: 201 with the normalised email, default max_devices and no password or hash', async () => {
      const answer = await create({ product_id: productA, email: '  Ada.Lovelace@Example.COM ', password });
      expect(answer.status).toBe(201);
      expect(answer.body).toEqual({
        ok: true,
        account: {
          account_id: expect.stringMatching(/^[0-9a-f]{32}$/),
          product_id: productA,
          email: 'ada.lovelace@example.com',
          max_devices: 5,
          status: 'active',
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      });
      expect(answer.text).not.toContain(password);
      expect(answer.text).not.toMatch(/scrypt|hash/i);
      const withLimit = await create({ product_id: productA, email: freshEmail(), password, max_devices: 1000 });
      expect(withLimit.body.account.max_devices).toBe(1000);
    });

    it('stores a salted scrypt hash that verifies, never the plaintext', async () => {
      const email = freshEmail('stored');
      const answer = await create({ product_id: productA, email, password });
      const { rows } = await bench.sql.query<{ password_hash: string }>('SELECT password_hash FROM license_accounts WHERE account_id = $1', [answer.body.account.account_id]);
      const stored = rows[0]?.password_hash as string;
      expect(stored).toMatch(/^scrypt\$32768\$8\$3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      expect(stored).not.toContain(password);
      expect(await verifyAccountPassword(stored, password)).toBe(true);
      expect(await verifyAccountPassword(stored, `${password}!`)).toBe(false);
    });

    it('refuses a second account with the same email on the product, whatever its case, with 409 account_exists', async () => {
      const email = freshEmail('twice');
      expect((await create({ product_id: productA, email, password })).status).toBe(201);
      const again = await create({ product_id: productA, email: ` ${email.toUpperCase()}`, password: 'another password' });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ ok: false, error: { code: 'account_exists', message: expect.any(String) } });
      // Unique per product, not per vendor.
      const other = await createProduct(bench.server.context.adminProvisioning, { vendorId: bench.vendorA.vendorId, name: 'Product A2' });
      expect((await create({ product_id: other.productId, email, password })).status).toBe(201);
    });

    it.each([
      ['no body', undefined],
      ['a missing email', { password }],
      ['a malformed email', { email: 'not-an-email', password }],
      ['an email over 254 characters', { email: `${'a'.repeat(250)}@example.com`, password }],
      ['a 7-character password', { email: 'short@example.com', password: 'seven77' }],
      ['a password over 1024 characters', { email: 'long@example.com', password: 'p'.repeat(1025) }],
      ['a non-string password', { email: 'num@example.com', password: 123456789 }],
      ['max_devices 0', { email: 'zero@example.com', password, max_devices: 0 }],
      ['max_devices 1001', { email: 'many@example.com', password, max_devices: 1001 }],
      ['a fractional max_devices', { email: 'half@example.com', password, max_devices: 2.5 }],
      ['a string max_devices', { email: 'text@example.com', password, max_devices: '3' }],
      ['an unknown field', { email: 'extra@example.com', password, admin: true }],
      ['a malformed product_id', { product_id: 'PRODUCT', email: 'bad@example.com', password }],
    ])('refuses %s with 400 invalid_request, never echoing the password', async (_title, fields) => {
      const body = fields === undefined ? undefined : { product_id: productA, ...fields };
      const answer = await bench.call('POST', '/accounts', { key: freshKey(), ...(body === undefined ? {} : { body }) });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('invalid_request');
      for (const secret of ['seven77', 'p'.repeat(40), '123456789', password]) expect(answer.text).not.toContain(secret);
    });

    it('answers another vendor’s product and an unknown product as 404 not_found', async () => {
      for (const productId of [bench.vendorB.productId, 'f'.repeat(32)]) {
        const answer = await create({ product_id: productId, email: freshEmail(), password });
        expect(answer.status).toBe(404);
        expect(answer.body.error.code).toBe('not_found');
      }
    });

    it('needs the accounts:rw scope', async () => {
      const token = await bench.tokenWith(bench.vendorA, adminScopes.filter((scope) => scope !== 'accounts:rw'));
      expect((await bench.call('GET', '/accounts', { token })).status).toBe(403);
      const refused = await create({ product_id: productA, email: freshEmail(), password }, { token });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('insufficient_scope');
      const allowed = await bench.tokenWith(bench.vendorA, ['accounts:rw']);
      expect((await bench.call('GET', '/accounts', { token: allowed })).status).toBe(200);
    });

    it('replays a create with the same Idempotency-Key verbatim and refuses the key with another body', async () => {
      const key = freshKey();
      const body = { product_id: productA, email: freshEmail('replay'), password };
      const first = await create(body, { key });
      const replay = await create(body, { key });
      expect(first.status).toBe(201);
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      const listed = await bench.call('GET', '/accounts', { query: { email: body.email } });
      expect(listed.body.accounts).toHaveLength(1);
      const conflict = await create({ ...body, password: 'a different password' }, { key });
      expect(conflict.status).toBe(409);
      expect(conflict.body.error.code).toBe('idempotency_conflict');
    });

    it('audits the creation without the email or the password', async () => {
      const email = freshEmail('audited');
      const created = await create({ product_id: productA, email, password, max_devices: 3 });
      const audit = await bench.call('GET', '/audit', { query: { target_type: 'account', target_id: created.body.account.account_id } });
      expect(audit.status).toBe(200);
      expect(audit.body.events).toHaveLength(1);
      expect(audit.body.events[0]).toMatchObject({ action: 'account.create', actor: expect.any(String), summary: { product_id: productA, max_devices: 3 } });
      expect(audit.text).not.toContain(email);
      expect(audit.text).not.toContain(password);
    });

    describe('the list', () => {
      let productC: string;
      const emails: string[] = [];
      beforeAll(async () => {
        productC = (await createProduct(bench.server.context.adminProvisioning, { vendorId: bench.vendorA.vendorId, name: 'Listed product' })).productId;
        for (let index = 0; index < 5; index += 1) {
          const email = freshEmail(`listed${index}`);
          emails.push(email);
          expect((await create({ product_id: productC, email, password })).status).toBe(201);
        }
        await create({ product_id: bench.vendorB.productId, email: freshEmail('b'), password }, { token: bench.vendorB.token });
      });

      it('lists a product’s accounts newest first, page by page with next_cursor', async () => {
        const seen: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await bench.call('GET', '/accounts', { query: { product_id: productC, limit: '2', ...(cursor === undefined ? {} : { cursor }) } });
          expect(page.status).toBe(200);
          expect(page.body.accounts.length).toBeLessThanOrEqual(2);
          seen.push(...page.body.accounts.map((account: { email: string }) => account.email));
          cursor = page.body.next_cursor ?? undefined;
          pages += 1;
        } while (cursor !== undefined && pages < 10);
        expect(pages).toBe(3);
        expect(seen).toEqual([...emails].reverse());
      });

      it('filters by email, compared normalised', async () => {
        const target = emails[2] as string;
        const answer = await bench.call('GET', '/accounts', { query: { email: ` ${target.toUpperCase()} ` } });
        expect(answer.body.accounts.map((account: { email: string }) => account.email)).toEqual([target]);
        expect(answer.body.next_cursor).toBeNull();
        const none = await bench.call('GET', '/accounts', { query: { email: 'nobody@example.com' } });
        expect(none.body).toEqual({ ok: true, accounts: [], next_cursor: null });
      });

      it('shows each vendor only its own accounts, even when filtering by the other’s product', async () => {
        const mine = await bench.call('GET', '/accounts', { query: { limit: '200' } });
        expect(mine.body.accounts.every((account: { product_id: string }) => account.product_id !== bench.vendorB.productId)).toBe(true);
        const theirs = await bench.call('GET', '/accounts', { token: bench.vendorB.token, query: { limit: '200' } });
        expect(theirs.body.accounts).toHaveLength(1);
        expect(theirs.body.accounts[0].product_id).toBe(bench.vendorB.productId);
        const peek = await bench.call('GET', '/accounts', { token: bench.vendorB.token, query: { product_id: productC } });
        expect(peek.status).toBe(404);
        expect(peek.body.error.code).toBe('not_found');
      });

      it('refuses a bad limit, cursor or product_id filter with 400', async () => {
        const queries: Record<string, string>[] = [{ limit: '0' }, { limit: '201' }, { cursor: 'not a cursor' }, { product_id: 'nope' }];
        for (const query of queries) {
          const answer = await bench.call('GET', '/accounts', { query });
          expect(answer.status, JSON.stringify(query)).toBe(400);
          expect(answer.body.error.code).toBe('invalid_request');
        }
      });
    });

    raceCase('lets exactly one of six concurrent creates of one email through', () => ({ engine: engine.name }), async () => {
      const email = freshEmail('race');
      const answers = await Promise.all(Array.from({ length: 6 }, () => create({ product_id: productA, email, password })));
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    });
  });
}
