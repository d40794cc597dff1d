/**
 * `POST /v1/account/login` over real HTTP on each engine: sessions, one answer for every wrong
 * credential, the stand-in KDF for unknown emails, and the per-account and per-address login gates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CborValue } from '@tollgate/core/cbor';
import { randomId } from '@tollgate/core/crypto';
import { createSqlAccountStore, decodeLicenseMessage, hashAccountPassword } from '@tollgate/core/license';
import { raceCase } from '@tollgate/core/testing';
import { benchStart, cheapCost, openAccountBench, postTo, type AccountApp, type AccountBench } from './account-sessions-harness';
import { serverEngines } from '../helpers';

const password = 'correct horse battery';
let counter = 0;
const freshEmail = (prefix = 'user') => `${prefix}-${(counter += 1)}@example.com`;

const loginBody = (productId: string, email: string, secret: string) =>
  new Map<number, CborValue>([
    [0, 1],
    [1, productId],
    [2, email],
    [3, secret],
  ]);

const errorOf = (bytes: Uint8Array) => decodeLicenseMessage('error-body', bytes);

for (const engine of serverEngines) {
  describe(`POST /v1/account/login [${engine.name}]`, () => {
    let bench: AccountBench;
    let app: AccountApp;
    const login = (email: string, secret = password, target: AccountApp = app, productId = bench.productId) => postTo(target, '/v1/account/login', loginBody(productId, email, secret));

    beforeAll(async () => {
      bench = await openAccountBench(engine);
      // The address gate is off here (every case comes from 127.0.0.1); it has its own cases below.
      app = await bench.serve({ gates: { address: null } });
    });
    afterAll(() => bench?.close());

    it('answers a CBOR AccountSession of two fresh 32-byte tokens whose access token resolves the account', async () => {
      const email = freshEmail();
      const { accountId } = await bench.createAccount(email, password);
      const answer = await login(email);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/cbor');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
      const session = decodeLicenseMessage('account-session', answer.bytes);
      expect(session.accessToken).toHaveLength(32);
      expect(session.refreshToken).toHaveLength(32);
      expect(session.accessToken).not.toEqual(session.refreshToken);
      expect([session.accessExpiresAt, session.refreshExpiresAt]).toEqual([benchStart + 900, benchStart + 30 * 86_400]);
      expect(await app.sessions.verifyAccessToken(bench.productId, session.accessToken)).toEqual({ accountId, vendorId: bench.vendorId, productId: bench.productId });
      // The refresh token is no access token, and the token works for its product only.
      expect(await app.sessions.verifyAccessToken(bench.productId, session.refreshToken)).toBeUndefined();
      expect(await app.sessions.verifyAccessToken('other-product', session.accessToken)).toBeUndefined();
      // Only keyed hashes are stored.
      const { rows } = await bench.sql.query<{ access_hash: string; refresh_hash: string }>('SELECT access_hash, refresh_hash FROM license_account_sessions WHERE account_id = $1', [accountId]);
      const stored = JSON.stringify(rows);
      expect(rows).toHaveLength(1);
      expect(stored).not.toContain(Buffer.from(session.accessToken).toString('hex'));
      expect(stored).not.toContain(Buffer.from(session.refreshToken).toString('hex'));
    });

    it('matches the email as the Admin API stored it (trimmed, any case) and starts one family per login', async () => {
      const email = freshEmail('case');
      const { accountId } = await bench.createAccount(email, password);
      expect((await login(`  ${email.toUpperCase()} `)).status).toBe(200);
      expect((await login(email)).status).toBe(200);
      const { rows } = await bench.sql.query('SELECT 1 FROM license_account_sessions WHERE account_id = $1', [accountId]);
      expect(rows).toHaveLength(2);
    });

    it('gives a wrong password, an unknown email, an unknown product and a revoked account one answer: 401 code 1000', async () => {
      const email = freshEmail('wrong');
      const revoked = freshEmail('revoked');
      await bench.createAccount(email, password);
      const { accountId } = await bench.createAccount(revoked, password);
      await bench.sql.query("UPDATE license_accounts SET status = 'revoked' WHERE account_id = $1", [accountId]);
      const answers = [await login(email, 'not the password'), await login(freshEmail('nobody')), await login(email, password, app, 'unknown-product'), await login(revoked)];
      for (const answer of answers) {
        expect(answer.status).toBe(401);
        expect(errorOf(answer.bytes)).toEqual({ code: 1000, message: 'The email or password is wrong.' });
        expect(answer.headers.get('retry-after')).toBeNull();
      }
    });

    it('runs the password KDF against a stand-in hash of the account cost when no usable account matches', async () => {
      const email = freshEmail('kdf');
      const revoked = freshEmail('kdf-revoked');
      const { passwordHash } = await bench.createAccount(email, password);
      const revokedAccount = await bench.createAccount(revoked, password);
      await bench.sql.query("UPDATE license_accounts SET status = 'revoked' WHERE account_id = $1", [revokedAccount.accountId]);
      const checksOf = async (run: () => Promise<unknown>) => {
        const before = bench.checks.length;
        await run();
        return bench.checks.slice(before);
      };
      expect(await checksOf(() => login(email))).toEqual([{ stored: passwordHash, matched: true }]);
      expect(await checksOf(() => login(email, 'wrong password'))).toEqual([{ stored: passwordHash, matched: false }]);
      const unknown = [
        ...(await checksOf(() => login(freshEmail('ghost'), password))),
        ...(await checksOf(() => login(freshEmail('ghost'), password, app, 'no-such-product'))),
        ...(await checksOf(() => login(revoked))), // a revoked account is no usable account
      ];
      expect(unknown).toHaveLength(3);
      for (const check of unknown) {
        expect(check.matched).toBe(false);
        expect(check.stored).toMatch(new RegExp(`^scrypt\\$${cheapCost.N}\\$${cheapCost.r}\\$${cheapCost.p}\\$[A-Za-z0-9_-]{22}\\$[A-Za-z0-9_-]{43}$`));
        expect([passwordHash, revokedAccount.passwordHash]).not.toContain(check.stored);
      }
    });

    it('locks an account after 5 failures: 429 code 1005 with retry_after and Retry-After, doubling, cleared by a correct password', async () => {
      const email = freshEmail('gate');
      await bench.createAccount(email, password);
      for (let attempt = 1; attempt <= 5; attempt += 1) expect((await login(email, `wrong ${attempt}`)).status, `attempt ${attempt}`).toBe(401);
      const checksBefore = bench.checks.length;
      const locked = await login(email); // even the right password waits
      expect(locked.status).toBe(429);
      expect(errorOf(locked.bytes)).toEqual({ code: 1005, message: expect.any(String), retryAfter: 30 });
      expect(locked.headers.get('retry-after')).toBe('30');
      expect(bench.checks.length).toBe(checksBefore); // no KDF while locked
      bench.clock.advance(10_000);
      expect(errorOf((await login(email)).bytes).retryAfter).toBe(20);
      bench.clock.advance(20_000);
      expect((await login(email, 'wrong 6')).status).toBe(401); // let through; the lock doubles
      expect(errorOf((await login(email)).bytes)).toMatchObject({ code: 1005, retryAfter: 60 });
      bench.clock.advance(60_000);
      expect((await login(email)).status).toBe(200);
      // Cleared: five fresh failures before the next lock.
      for (let attempt = 1; attempt <= 5; attempt += 1) expect((await login(email, `again ${attempt}`)).status).toBe(401);
      expect((await login(email)).status).toBe(429);
    });

    it('gates an unknown email exactly like a known one (no account enumeration through the gate)', async () => {
      const ghost = freshEmail('ghost-gate');
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 6; attempt += 1) statuses.push((await login(ghost, 'guess')).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
      const { rows } = await bench.sql.query<{ gate_key: string }>('SELECT gate_key FROM license_login_gates');
      expect(JSON.stringify(rows)).not.toContain('ghost');
    });

    it('locks a client address after its threshold of failures across accounts; a correct login gives its charge back', async () => {
      const gated = await bench.serve({ gates: { address: { threshold: 3, baseLockSeconds: 5, maxLockSeconds: 5, forgetAfterSeconds: 3600 } } });
      bench.clock.advance(7200_000); // forget earlier cases' charges of this address
      const email = freshEmail('addr');
      await bench.createAccount(email, password);
      expect((await login(freshEmail('a'), 'x', gated)).status).toBe(401);
      expect((await login(freshEmail('b'), 'x', gated)).status).toBe(401);
      expect((await login(email, password, gated)).status).toBe(200); // charged, then refunded: 2 failures
      expect((await login(freshEmail('c'), 'x', gated)).status).toBe(401); // the 3rd failure starts the lock
      const locked = await login(email, password, gated);
      expect([locked.status, errorOf(locked.bytes).retryAfter, locked.headers.get('retry-after')]).toEqual([429, 5, '5']);
      bench.clock.advance(5_000);
      expect((await login(email, password, gated)).status).toBe(200);
      await gated.close();
    });

    it('logs in an account hashed at the Admin API cost (scrypt N=2^15), the stand-in hash at that cost too', async () => {
      // `undefined` drops the bench's cheap stand-in cost and recorder: the service's own defaults apply.
      const real = await bench.serve({ gates: { address: null }, unknownAccountCost: undefined, verifyPassword: undefined });
      const email = freshEmail('real-cost');
      await createSqlAccountStore(bench.sql).create({
        accountId: randomId(),
        vendorId: bench.vendorId,
        productId: bench.productId,
        email,
        passwordHash: await hashAccountPassword(password),
        maxDevices: 5,
        createdAt: new Date(bench.clock.now()),
      });
      expect((await login(email, password, real)).status).toBe(200);
      expect((await login(email, 'wrong password', real)).status).toBe(401);
      expect((await login(freshEmail('real-ghost'), password, real)).status).toBe(401);
      await real.close();
    });

    raceCase('charges concurrent wrong logins before the KDF: of 20, exactly 5 reach it and 15 are refused', () => ({ engine: engine.name }), async () => {
      const second = await bench.serve({ sql: await bench.database.connect(), gates: { address: null } });
      const email = freshEmail('race');
      await bench.createAccount(email, password);
      const before = bench.checks.length;
      const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => login(email, `guess ${n}`, n % 2 === 0 ? app : second)));
      expect(answers.filter((answer) => answer.status === 401)).toHaveLength(5);
      expect(answers.filter((answer) => answer.status === 429)).toHaveLength(15);
      expect(bench.checks.length - before).toBe(5);
      await second.close();
    });
  });
}
