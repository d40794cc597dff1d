/**
 * The account-session stores on each engine: the login gate's SQL against its TypeScript reference, and
 * the concurrency contracts (gate charges, refresh rotation) on the PostgreSQL server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '@tollgate/core/crypto';
import {
  createSqlAccountSessionStore,
  createSqlLoginGateStore,
  hashAccountPassword,
  loginGateCharge,
  loginGateRefund,
  type LoginGateRule,
  type LoginGateState,
  type StoredTokenPair,
} from '@tollgate/core/license';
import { raceCase, testDatabaseEngines, type TestDatabase } from '@tollgate/core/testing';
import { seedVendor, seedTime } from '../admin/license-admin-fixtures';
import { openLicenseTestDatabase } from '../license-test-database';

const engines = await testDatabaseEngines();

/** mulberry32: the same "random" sequences on every run. */
function seeded(seed: number) {
  let state = seed >>> 0;
  return (max: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * max);
  };
}

const hex64 = () => randomId() + randomId();

function freshPair(now: Date, ttlSeconds = 900): StoredTokenPair {
  return { accessHash: hex64(), accessExpiresAt: new Date(now.getTime() + ttlSeconds * 1000), refreshHash: hex64(), refreshExpiresAt: new Date(now.getTime() + 30 * 86_400_000) };
}

for (const engine of engines) {
  describe(`account session stores [${engine.name}]`, () => {
    let database: TestDatabase;
    let accountId: string;
    let productId: string;

    beforeAll(async () => {
      database = await openLicenseTestDatabase(engine);
      const vendor = await seedVendor(database.sql);
      productId = vendor.productId;
      accountId = randomId();
      await database.sql.query(
        `INSERT INTO license_accounts (account_id, vendor_id, product_id, email, password_hash, max_devices, status, created_at, updated_at)
         VALUES ($1, $2, $3, 'store@example.com', $4, 5, 'active', $5, $5)`,
        [accountId, vendor.vendorId, vendor.productId, await hashAccountPassword('irrelevant here', { cost: { N: 2 ** 4, r: 1, p: 1 } }), seedTime],
      );
    });
    afterAll(() => database?.close());

    it('charges, refunds and clears exactly like loginGateCharge / loginGateRefund over random sequences', async () => {
      const gates = createSqlLoginGateStore(database.sql);
      const random = seeded(engine.name === 'pglite' ? 7 : 8);
      const rules: LoginGateRule[] = [
        { threshold: 1, baseLockSeconds: 1, maxLockSeconds: 1, forgetAfterSeconds: 5 },
        { threshold: 3, baseLockSeconds: 2, maxLockSeconds: 40, forgetAfterSeconds: 60 },
        { threshold: 5, baseLockSeconds: 30, maxLockSeconds: 900, forgetAfterSeconds: 3600 },
      ];
      for (const [index, rule] of rules.entries()) {
        const key = hex64();
        let expected: LoginGateState | undefined;
        let now = 1_800_000_000;
        for (let step = 0; step < 150; step += 1) {
          now += random(4) === 0 ? random(rule.forgetAfterSeconds * 2) : random(3);
          const action = random(10);
          if (action === 0 && expected !== undefined) {
            await gates.refund(key, rule);
            expected = loginGateRefund(expected, rule);
          } else if (action === 1) {
            await gates.clear(key);
            expected = undefined;
          } else {
            const decision = await gates.charge(key, now, rule);
            const reference = loginGateCharge(expected, now, rule);
            expect(decision, `rule ${index}, step ${step}`).toEqual(reference);
            expected = reference.state;
          }
          expect(await gates.read(key), `rule ${index}, step ${step}`).toEqual(expected);
        }
      }
    });

    it('purges only unlocked gate rows whose last charge is forgotten', async () => {
      const gates = createSqlLoginGateStore(database.sql);
      const rule: LoginGateRule = { threshold: 1, baseLockSeconds: 100, maxLockSeconds: 100, forgetAfterSeconds: 10 };
      const [old, locked, recent] = [hex64(), hex64(), hex64()];
      await gates.charge(old, 1000, { ...rule, threshold: 2 });
      await gates.charge(locked, 1000, rule); // locked until 1100
      await gates.charge(recent, 1045, { ...rule, threshold: 2 });
      expect(await gates.purge(1050, 10)).toBe(1);
      expect(await gates.read(old)).toBeUndefined();
      expect(await gates.read(locked)).toBeDefined();
      expect(await gates.read(recent)).toBeDefined();
    });

    it('rotates a live refresh hash once; a spent one revokes the family; logout by a spent hash finds the family too', async () => {
      const store = createSqlAccountSessionStore(database.sql);
      const now = new Date(Date.UTC(2026, 5, 1));
      const first = freshPair(now);
      expect(await store.create({ sessionId: randomId(), accountId, pair: first, createdAt: now })).toBe(true);
      expect(await store.resolveAccess(productId, first.accessHash, now)).toMatchObject({ accountId, productId });
      const second = freshPair(now);
      expect((await store.rotate(first.refreshHash, second, now)).kind).toBe('rotated');
      expect(await store.resolveAccess(productId, first.accessHash, now)).toBeUndefined();
      expect(await store.resolveAccess(productId, second.accessHash, now)).toMatchObject({ accountId });
      expect(await store.resolveAccess('another-product', second.accessHash, now)).toBeUndefined();
      expect((await store.rotate(first.refreshHash, freshPair(now), now)).kind).toBe('reuse_detected');
      expect(await store.resolveAccess(productId, second.accessHash, now)).toBeUndefined();
      expect((await store.rotate(second.refreshHash, freshPair(now), now)).kind).toBe('refused');
      expect((await store.rotate(hex64(), freshPair(now), now)).kind).toBe('refused');
      expect(await store.revokeFamily(first.refreshHash, now, 'logout')).toBe(true);
      expect(await store.revokeFamily(hex64(), now, 'logout')).toBe(false);
      const { rows } = await database.sql.query<{ revoke_reason: string }>('SELECT revoke_reason FROM license_account_sessions WHERE refresh_hash = $1', [second.refreshHash]);
      expect(rows).toEqual([{ revoke_reason: 'refresh_reuse' }]);
    });

    it('does not start a session for an account that is not active, and purges expired families with their spent tokens', async () => {
      const store = createSqlAccountSessionStore(database.sql);
      const now = new Date(Date.UTC(2026, 5, 2));
      expect(await store.create({ sessionId: randomId(), accountId: randomId(), pair: freshPair(now), createdAt: now })).toBe(false);
      const expiring = { ...freshPair(now), refreshExpiresAt: new Date(now.getTime() + 1000) };
      await store.create({ sessionId: randomId(), accountId, pair: expiring, createdAt: now });
      await store.rotate(expiring.refreshHash, { ...freshPair(now), refreshExpiresAt: new Date(now.getTime() + 2000) }, now);
      expect(await store.purgeExpired(new Date(now.getTime() + 3000))).toBe(1);
      const { rows } = await database.sql.query('SELECT 1 FROM license_account_spent_refresh_tokens WHERE token_hash = $1', [expiring.refreshHash]);
      expect(rows).toHaveLength(0);
    });

    raceCase('lets exactly the free charges of 30 concurrent ones through a gate', () => ({ engine: engine.name }), async () => {
      const clients = [database.sql, await database.connect()];
      const gates = clients.map((sql) => createSqlLoginGateStore(sql));
      const key = hex64();
      const rule: LoginGateRule = { threshold: 5, baseLockSeconds: 30, maxLockSeconds: 900, forgetAfterSeconds: 3600 };
      const decisions = await Promise.all(Array.from({ length: 30 }, (_, n) => (gates[n % 2] as (typeof gates)[number]).charge(key, 5000, rule)));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
      expect(await gates[0]?.read(key)).toEqual({ failures: 5, lastChargeAt: 5000, lockedUntil: 5030 });
    });

    raceCase('of 12 concurrent rotations with one refresh token on two instances exactly one wins, and the family ends revoked', () => ({ engine: engine.name }), async () => {
      const stores = [createSqlAccountSessionStore(database.sql), createSqlAccountSessionStore(await database.connect())];
      for (let round = 0; round < 5; round += 1) {
        const now = new Date(Date.UTC(2026, 5, 3, round));
        const pair = freshPair(now);
        await stores[0]?.create({ sessionId: randomId(), accountId, pair, createdAt: now });
        const replacements = Array.from({ length: 12 }, () => freshPair(now));
        const outcomes = await Promise.all(replacements.map((replacement, n) => (stores[n % 2] as (typeof stores)[number]).rotate(pair.refreshHash, replacement, now)));
        const winners = outcomes.map((outcome, n) => ({ outcome, n })).filter(({ outcome }) => outcome.kind === 'rotated');
        expect(winners, `round ${round}`).toHaveLength(1);
        expect(outcomes.filter((outcome) => outcome.kind === 'reuse_detected'), `round ${round}`).toHaveLength(11);
        const winner = replacements[winners[0]?.n as number] as StoredTokenPair;
        expect(await stores[0]?.resolveAccess(productId, winner.accessHash, now)).toBeUndefined();
        const { rows } = await database.sql.query<{ generation: number; revoke_reason: string }>('SELECT generation, revoke_reason FROM license_account_sessions WHERE refresh_hash = $1', [
          winner.refreshHash,
        ]);
        expect(rows).toEqual([{ generation: 1, revoke_reason: 'refresh_reuse' }]);
      }
    });
  });
}
