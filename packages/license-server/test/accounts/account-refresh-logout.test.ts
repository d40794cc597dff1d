/**
 * `POST /v1/account/refresh` and `/logout` over real HTTP on each engine, through the client SDK calls:
 * rotation, reuse detection revoking the family, expiry, logout, and the refresh race on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CborValue } from '@tollgate/core/cbor';
import { randomBytes } from '@tollgate/core/crypto';
import { decodeLicenseMessage, type AccountSession } from '@tollgate/core/license';
import { raceCase } from '@tollgate/core/testing';
import { LicenseRequestError } from '@tollgate/client-sdk';
import { login, logout, refresh } from '../../../client-sdk/src/account-calls';
import { benchStart, openAccountBench, postTo, type AccountApp, type AccountBench } from './account-sessions-harness';
import { serverEngines } from '../helpers';

const password = 'correct horse battery';

/** The SDK error a call rejects with (fails the case when it resolves). */
async function rejectionOf(call: Promise<unknown>): Promise<LicenseRequestError> {
  const error = await call.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof LicenseRequestError)) throw new Error(`expected a LicenseRequestError, got ${String(error)}`);
  return error;
}

for (const engine of serverEngines) {
  describe(`account refresh and logout [${engine.name}]`, () => {
    let bench: AccountBench;
    let app: AccountApp;
    let accountId: string;
    const email = `refresh-${engine.name}@example.com`;
    const signIn = (target: AccountApp = app) => login({ baseUrl: target.url }, { productId: bench.productId, email, password });
    const resolves = async (session: AccountSession) => (await app.sessions.verifyAccessToken(bench.productId, session.accessToken))?.accountId;

    beforeAll(async () => {
      bench = await openAccountBench(engine);
      app = await bench.serve({ gates: { address: null } });
      ({ accountId } = await bench.createAccount(email, password));
    });
    afterAll(() => bench?.close());

    it('rotates both tokens: the new access token resolves, the previous one stops at once', async () => {
      const first = await signIn();
      bench.clock.advance(60_000);
      const second = await refresh({ baseUrl: app.url }, first.refreshToken);
      expect(second.accessToken).not.toEqual(first.accessToken);
      expect(second.refreshToken).not.toEqual(first.refreshToken);
      expect([second.accessExpiresAt, second.refreshExpiresAt]).toEqual([benchStart + 60 + 900, benchStart + 60 + 30 * 86_400]);
      expect(await resolves(first)).toBeUndefined();
      expect(await resolves(second)).toBe(accountId);
      const third = await refresh({ baseUrl: app.url }, second.refreshToken);
      expect(await resolves(third)).toBe(accountId);
    });

    it('revokes the whole family when a spent refresh token comes back: 401 code 1003, and every token of it dies', async () => {
      const first = await signIn();
      const second = await refresh({ baseUrl: app.url }, first.refreshToken);
      const third = await refresh({ baseUrl: app.url }, second.refreshToken);
      const other = await signIn(); // another family of the same account is untouched
      const reuse = await rejectionOf(refresh({ baseUrl: app.url }, first.refreshToken));
      expect([reuse.code, reuse.status]).toEqual([1003, 401]);
      expect(await resolves(third)).toBeUndefined();
      expect((await rejectionOf(refresh({ baseUrl: app.url }, third.refreshToken))).code).toBe(1003);
      expect(await resolves(other)).toBe(accountId);
    });

    it('answers 1003 for an unknown refresh token, an access token sent as one, and an expired one', async () => {
      expect((await rejectionOf(refresh({ baseUrl: app.url }, randomBytes(32)))).code).toBe(1003);
      const session = await signIn();
      expect((await rejectionOf(refresh({ baseUrl: app.url }, session.accessToken))).code).toBe(1003);
      bench.clock.advance(901_000);
      expect(await resolves(session)).toBeUndefined(); // the access token expired after 900 s
      const renewed = await refresh({ baseUrl: app.url }, session.refreshToken); // the refresh token still works
      expect(await resolves(renewed)).toBe(accountId);
      bench.clock.advance(30 * 86_400_000);
      expect((await rejectionOf(refresh({ baseUrl: app.url }, renewed.refreshToken))).code).toBe(1003);
    });

    it('ends sessions when the account is revoked', async () => {
      const other = `revoked-${engine.name}@example.com`;
      const created = await bench.createAccount(other, password);
      const session = await login({ baseUrl: app.url }, { productId: bench.productId, email: other, password });
      await bench.sql.query("UPDATE license_accounts SET status = 'revoked' WHERE account_id = $1", [created.accountId]);
      expect(await app.sessions.verifyAccessToken(bench.productId, session.accessToken)).toBeUndefined();
      expect((await rejectionOf(refresh({ baseUrl: app.url }, session.refreshToken))).code).toBe(1003);
    });

    it('logs out with 204 whatever the token; a known one (live or spent) revokes its family', async () => {
      const session = await signIn();
      await logout({ baseUrl: app.url }, session.refreshToken);
      expect(await resolves(session)).toBeUndefined();
      expect((await rejectionOf(refresh({ baseUrl: app.url }, session.refreshToken))).code).toBe(1003);
      await logout({ baseUrl: app.url }, session.refreshToken); // again: same answer
      const unknown = await postTo(app, '/v1/account/logout', new Map<number, CborValue>([[0, 1], [1, randomBytes(32)]]));
      expect([unknown.status, unknown.bytes.length]).toEqual([204, 0]);
      const first = await signIn();
      const second = await refresh({ baseUrl: app.url }, first.refreshToken);
      await logout({ baseUrl: app.url }, first.refreshToken); // spent, still names the family
      expect(await resolves(second)).toBeUndefined();
      const { rows } = await bench.sql.query<{ revoke_reason: string }>('SELECT revoke_reason FROM license_account_sessions WHERE generation = 1 AND revoked_at IS NOT NULL');
      expect(rows.map((row) => row.revoke_reason)).toContain('logout');
    });

    it('reports the login gate to SDK callers as code 1005 with retryAfterSeconds', async () => {
      const locked = `locked-${engine.name}@example.com`;
      for (let attempt = 0; attempt < 5; attempt += 1) {
        const error = await rejectionOf(login({ baseUrl: app.url }, { productId: bench.productId, email: locked, password: 'wrong' }));
        expect([error.code, error.status]).toEqual([1000, 401]);
      }
      const error = await rejectionOf(login({ baseUrl: app.url }, { productId: bench.productId, email: locked, password: 'wrong' }));
      expect([error.code, error.status, error.retryAfterSeconds]).toEqual([1005, 429, 30]);
    });

    raceCase('lets exactly one of 10 concurrent refreshes with one token (two instances) rotate; the losers revoke the family', () => ({ engine: engine.name }), async () => {
      const second = await bench.serve({ sql: await bench.database.connect(), gates: { address: null } });
      for (let round = 0; round < 3; round += 1) {
        const session = await signIn();
        const body = new Map<number, CborValue>([[0, 1], [1, session.refreshToken]]);
        const answers = await Promise.all(Array.from({ length: 10 }, (_, n) => postTo(n % 2 === 0 ? app : second, '/v1/account/refresh', body)));
        const winners = answers.filter((answer) => answer.status === 200);
        expect(winners, `round ${round}`).toHaveLength(1);
        expect(answers.filter((answer) => answer.status === 401 && decodeLicenseMessage('error-body', answer.bytes).code === 1003)).toHaveLength(9);
        const rotated = decodeLicenseMessage('account-session', (winners[0] as (typeof winners)[number]).bytes);
        expect(await resolves(rotated)).toBeUndefined();
        expect((await rejectionOf(refresh({ baseUrl: app.url }, rotated.refreshToken))).code).toBe(1003);
      }
      await second.close();
    });
  });
}
