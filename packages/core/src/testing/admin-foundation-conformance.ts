import { expect, it } from 'vitest';
import { AdminError } from '../errors/admin';
import type { AdminTokenStore } from '../license/admin/admin-token-store';
import type { IdempotencyJournal, JournaledRequest } from '../license/admin/idempotency-journal';
import type { VendorStore } from '../license/admin/vendor-store';
import type { SqlClient } from '../storage/sql-client';
import { describeConformance, type ConformanceFixture, type ConformanceSuiteOptions } from './conformance';
import { raceCase, type RaceFixture } from './race-case';

/** What the Admin foundation suites open: the three stores over one database with the license migrations. */
export interface AdminFoundationConformanceFixture extends ConformanceFixture, RaceFixture {
  readonly sql: SqlClient;
  readonly vendors: VendorStore;
  readonly tokens: AdminTokenStore;
  readonly journal: IdempotencyJournal;
}

const t0 = new Date(Date.UTC(2026, 2, 1, 12));
const later = (ms: number) => new Date(t0.getTime() + ms);
let serial = 0;
const hex32 = () => {
  serial += 1;
  return Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('') + serial.toString(16).padStart(8, '0');
};
const fingerprint = (text: string) => new Uint8Array(32).fill(text.length % 251).map((byte, index) => (byte + (text.charCodeAt(index % text.length) || 0)) % 256);

async function vendorWithProduct(vendors: VendorStore) {
  const vendor = await vendors.createVendor({ vendorId: hex32(), name: 'Acme', createdAt: t0 });
  const product = await vendors.createProduct({ productId: hex32(), vendorId: vendor.vendorId, name: 'Editor', createdAt: t0 });
  return { vendor, product };
}

/**
 * Conformance suite of the Admin API's storage ports: {@link VendorStore} (vendor-scoped products),
 * {@link AdminTokenStore} (hash lookups, expiry, revocation, rate-limited last-use) and
 * {@link IdempotencyJournal} (one execution per key, verbatim replays, lookups, conflicts, rollback on
 * failure, journaled refusals, retention), with race cases that run only where there is real concurrency.
 *
 * @param options - `name` and `open()` returning the stores over an empty database.
 * @example
 * ```ts
 * import { describeAdminFoundationConformance, openTestDatabase } from '@tollgate/core/testing';
 * describeAdminFoundationConformance({ name: 'pglite', open: async () => { … } });
 * ```
 */
export function describeAdminFoundationConformance(options: ConformanceSuiteOptions<AdminFoundationConformanceFixture>): void {
  describeConformance('VendorStore', options, (fixture) => {
    it('reads a product only through its own vendor', async () => {
      const { vendors } = fixture();
      const a = await vendorWithProduct(vendors);
      const b = await vendorWithProduct(vendors);
      expect((await vendors.getProduct(a.vendor.vendorId, a.product.productId))?.name).toBe('Editor');
      expect(await vendors.getProduct(b.vendor.vendorId, a.product.productId)).toBeUndefined();
      expect(await vendors.setAlertWebhook(b.vendor.vendorId, a.product.productId, { url: 'https://x.example', threshold: 5 }, later(1))).toBeUndefined();
      expect((await vendors.getProduct(a.vendor.vendorId, a.product.productId))?.alertWebhook).toBeNull();
    });

    it('sets and clears the alert webhook', async () => {
      const { vendors } = fixture();
      const { vendor, product } = await vendorWithProduct(vendors);
      const set = await vendors.setAlertWebhook(vendor.vendorId, product.productId, { url: 'https://hooks.example/a', threshold: 7 }, later(5));
      expect(set).toMatchObject({ alertWebhook: { url: 'https://hooks.example/a', threshold: 7 } });
      expect(set?.updatedAt.getTime()).toBe(later(5).getTime());
      expect((await vendors.setAlertWebhook(vendor.vendorId, product.productId, null, later(6)))?.alertWebhook).toBeNull();
    });

    it('refuses a threshold outside 1..100 in storage too', async () => {
      const { vendors } = fixture();
      const { vendor, product } = await vendorWithProduct(vendors);
      await expect(vendors.setAlertWebhook(vendor.vendorId, product.productId, { url: 'https://x.example', threshold: 101 }, later(1))).rejects.toThrow();
    });
  });

  describeConformance('AdminTokenStore', options, (fixture) => {
    const newToken = async (overrides: { expiresAt?: Date | null } = {}) => {
      const { vendors, tokens } = fixture();
      const { vendor } = await vendorWithProduct(vendors);
      const tokenHash = hex32() + hex32();
      const record = await tokens.create({ tokenId: hex32(), vendorId: vendor.vendorId, tokenHash, label: 'ci', scopes: ['licenses:rw', 'revoke'], createdAt: t0, expiresAt: overrides.expiresAt ?? null });
      return { vendor, tokenHash, record };
    };

    it('finds a token only by its hash, with its vendor and scopes', async () => {
      const { tokens } = fixture();
      const { tokenHash, record, vendor } = await newToken();
      expect(await tokens.authenticate(tokenHash, later(1))).toEqual({ kind: 'valid', token: { ...record, lastUsedAt: later(1) } });
      expect((await tokens.authenticate(`${tokenHash.slice(0, -1)}0`, later(1))).kind).toBe(tokenHash.endsWith('0') ? 'valid' : 'unknown');
      expect(record.vendorId).toBe(vendor.vendorId);
    });

    it('answers expired at and after the expiry instant', async () => {
      const { tokens } = fixture();
      const { tokenHash } = await newToken({ expiresAt: later(1_000) });
      expect((await tokens.authenticate(tokenHash, later(999))).kind).toBe('valid');
      expect((await tokens.authenticate(tokenHash, later(1_000))).kind).toBe('expired');
    });

    it('records the last use at most once a minute', async () => {
      const { tokens } = fixture();
      const { tokenHash, record } = await newToken();
      await tokens.authenticate(tokenHash, later(1_000));
      await tokens.authenticate(tokenHash, later(30_000));
      expect((await tokens.list(record.vendorId))[0]?.lastUsedAt?.getTime()).toBe(later(1_000).getTime());
      await tokens.authenticate(tokenHash, later(61_000));
      expect((await tokens.list(record.vendorId))[0]?.lastUsedAt?.getTime()).toBe(later(61_000).getTime());
    });

    it('revokes idempotently, and only within the vendor when one is named', async () => {
      const { tokens } = fixture();
      const { tokenHash, record } = await newToken();
      const other = await newToken();
      expect(await tokens.revoke(record.tokenId, later(5), other.vendor.vendorId)).toBeUndefined();
      expect((await tokens.revoke(record.tokenId, later(5), record.vendorId))?.revokedAt?.getTime()).toBe(later(5).getTime());
      expect((await tokens.revoke(record.tokenId, later(9)))?.revokedAt?.getTime()).toBe(later(5).getTime());
      expect((await tokens.authenticate(tokenHash, later(10))).kind).toBe('revoked');
      expect(await tokens.revoke(hex32(), later(5))).toBeUndefined();
    });
  });

  describeConformance('IdempotencyJournal', options, (fixture) => {
    const render = (error: AdminError) => ({ status: error.status, body: { ok: false, error: { code: error.code, message: error.message } } });
    const effects = async (sql: SqlClient, vendorId: string) =>
      Number(((await sql.query<{ n: string }>('SELECT count(*) AS n FROM license_products WHERE vendor_id = $1', [vendorId])).rows[0] as { n: string }).n);
    const createProductOnce = (vendorId: string) => async (tx: SqlClient) => {
      await tx.query('INSERT INTO license_products (product_id, vendor_id, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)', [hex32(), vendorId, 'P', t0]);
      return { status: 201, body: { ok: true, made: 'product', plaintext: 'secret-license-key' } };
    };
    const request = (vendorId: string, key: string, body = 'same'): JournaledRequest => ({ vendorId, key, fingerprint: fingerprint(body), now: later(1) });

    it('executes once and replays the stored answer verbatim', async () => {
      const { journal, vendors, sql } = fixture();
      const { vendor } = await vendorWithProduct(vendors);
      const first = await journal.run(request(vendor.vendorId, 'k1'), createProductOnce(vendor.vendorId), render);
      const second = await journal.run(request(vendor.vendorId, 'k1'), createProductOnce(vendor.vendorId), render);
      expect(first).toEqual({ answer: { status: 201, body: { ok: true, made: 'product', plaintext: 'secret-license-key' } }, replayed: false });
      expect(second).toEqual({ ...first, replayed: true });
      expect(await effects(sql, vendor.vendorId)).toBe(2);
    });

    it('looks up what is stored under a key without executing anything', async () => {
      const { journal, vendors, sql } = fixture();
      const { vendor } = await vendorWithProduct(vendors);
      expect(await journal.lookup(request(vendor.vendorId, 'k7'))).toEqual({ kind: 'none' });
      const first = await journal.run(request(vendor.vendorId, 'k7'), createProductOnce(vendor.vendorId), render);
      expect(await journal.lookup(request(vendor.vendorId, 'k7'))).toEqual({ kind: 'replay', answer: first.answer });
      expect(await journal.lookup(request(vendor.vendorId, 'k7', 'other body'))).toEqual({ kind: 'conflict' });
      expect(await journal.lookup({ ...request(vendor.vendorId, 'k7'), now: later(24 * 3600_000 + 2) })).toEqual({ kind: 'none' });
      const other = await vendorWithProduct(vendors);
      expect(await journal.lookup(request(other.vendor.vendorId, 'k7'))).toEqual({ kind: 'none' });
      // A refusal is an answer too.
      const refusing = async () => {
        throw new AdminError('already_revoked', 'Already revoked.');
      };
      const refused = await journal.run(request(vendor.vendorId, 'k8'), refusing, render);
      expect(await journal.lookup(request(vendor.vendorId, 'k8'))).toEqual({ kind: 'replay', answer: refused.answer });
      expect(await effects(sql, vendor.vendorId)).toBe(2);
    });

    it('keeps answers sealed and keys hashed at rest', async () => {
      const { journal, vendors, sql } = fixture();
      const { vendor } = await vendorWithProduct(vendors);
      await journal.run(request(vendor.vendorId, 'visible-key'), createProductOnce(vendor.vendorId), render);
      const { rows } = await sql.query<{ row: string }>("SELECT encode(key_hash, 'escape') || encode(sealed_answer, 'escape') AS row FROM license_idempotency");
      expect(rows.map((row) => row.row).join('')).not.toMatch(/secret-license-key|visible-key/);
    });

    it('refuses the same key with a different request', async () => {
      const { journal, vendors } = fixture();
      const { vendor } = await vendorWithProduct(vendors);
      await journal.run(request(vendor.vendorId, 'k2', 'one'), createProductOnce(vendor.vendorId), render);
      await expect(journal.run(request(vendor.vendorId, 'k2', 'other body'), createProductOnce(vendor.vendorId), render)).rejects.toMatchObject({ code: 'idempotency_conflict' });
    });

    it('scopes keys per vendor', async () => {
      const { journal, vendors, sql } = fixture();
      const a = await vendorWithProduct(vendors);
      const b = await vendorWithProduct(vendors);
      await journal.run(request(a.vendor.vendorId, 'shared'), createProductOnce(a.vendor.vendorId), render);
      const other = await journal.run(request(b.vendor.vendorId, 'shared', 'different'), createProductOnce(b.vendor.vendorId), render);
      expect(other.replayed).toBe(false);
      expect(await effects(sql, b.vendor.vendorId)).toBe(2);
    });

    it('journals nothing and keeps no effect when execution fails', async () => {
      const { journal, vendors, sql } = fixture();
      const { vendor } = await vendorWithProduct(vendors);
      const failing = async (tx: SqlClient) => {
        await createProductOnce(vendor.vendorId)(tx);
        throw new Error('process died here');
      };
      await expect(journal.run(request(vendor.vendorId, 'k3'), failing, render)).rejects.toThrow('process died here');
      expect(await effects(sql, vendor.vendorId)).toBe(1);
      const retried = await journal.run(request(vendor.vendorId, 'k3'), createProductOnce(vendor.vendorId), render);
      expect(retried.replayed).toBe(false);
      expect(await effects(sql, vendor.vendorId)).toBe(2);
    });

    it('journals a refusal with its effects rolled back, and replays it', async () => {
      const { journal, vendors, sql } = fixture();
      const { vendor } = await vendorWithProduct(vendors);
      const refusing = async (tx: SqlClient) => {
        await createProductOnce(vendor.vendorId)(tx);
        throw new AdminError('already_revoked', 'Already revoked.');
      };
      const first = await journal.run(request(vendor.vendorId, 'k4'), refusing, render);
      expect(first.answer).toEqual({ status: 409, body: { ok: false, error: { code: 'already_revoked', message: 'Already revoked.' } } });
      expect(await effects(sql, vendor.vendorId)).toBe(1);
      expect((await journal.run(request(vendor.vendorId, 'k4'), createProductOnce(vendor.vendorId), render)).replayed).toBe(true);
      expect(await effects(sql, vendor.vendorId)).toBe(1);
    });

    it('never journals a transient refusal: a retry with the key runs again', async () => {
      const { journal, vendors, sql } = fixture();
      const { vendor } = await vendorWithProduct(vendors);
      const busy = async () => {
        throw new AdminError('revocation_in_progress', 'Another revocation holds the target.');
      };
      await expect(journal.run(request(vendor.vendorId, 'k6'), busy, render)).rejects.toMatchObject({ code: 'revocation_in_progress' });
      const retried = await journal.run(request(vendor.vendorId, 'k6'), createProductOnce(vendor.vendorId), render);
      expect(retried.replayed).toBe(false);
      expect(await effects(sql, vendor.vendorId)).toBe(2);
    });

    it('forgets a key after its retention, and purges expired rows', async () => {
      const { journal, vendors, sql } = fixture();
      const { vendor } = await vendorWithProduct(vendors);
      await journal.run(request(vendor.vendorId, 'k5'), createProductOnce(vendor.vendorId), render);
      const dayLater = { ...request(vendor.vendorId, 'k5', 'new body'), now: later(24 * 3600_000 + 2) };
      expect((await journal.run(dayLater, createProductOnce(vendor.vendorId), render)).replayed).toBe(false);
      expect(await journal.purgeExpired(later(3 * 24 * 3600_000))).toBe(1);
      expect(await effects(sql, vendor.vendorId)).toBe(3);
    });

    raceCase('lets exactly one of 20 concurrent requests with one key execute; the others replay its answer', fixture, async () => {
      const { journal, vendors, sql } = fixture();
      const { vendor } = await vendorWithProduct(vendors);
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => journal.run(request(vendor.vendorId, 'race'), createProductOnce(vendor.vendorId), render)));
      expect(outcomes.filter((outcome) => !outcome.replayed)).toHaveLength(1);
      expect(new Set(outcomes.map((outcome) => JSON.stringify(outcome.answer))).size).toBe(1);
      expect(await effects(sql, vendor.vendorId)).toBe(2);
    });
  });
}
