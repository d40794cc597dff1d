import { base64UrlEncode } from '../../crypto/base64';
import { randomBytes, randomId } from '../../crypto/random';
import type { SqlClient } from '../../storage/sql-client';
import { systemClock, type Clock } from '../../time/clock';
import { accountPasswordCost, verifyAccountPassword, type ScryptParameters } from '../model/accounts/account-password';
import { normalizeAccountEmail } from '../model/accounts/account-store';
import { licenseWireLengths } from '../protocol';
import { accountGateKey, accountTokenHash, addressGateKey, deriveAccountSessionKeys } from './account-session-keys';
import { createSqlAccountSessionStore, type StoredTokenPair } from './account-session-store';
import type { AccountTokenIdentity, AccountTokenVerifier } from './account-token';
import { assertLoginGateRule, defaultLoginGateRules, loginGateAddress, type LoginGateRule } from './login-gate';
import { createSqlLoginGateStore } from './sql-login-gate';

/** A token pair handed to the client (the wire's AccountSession without `proto_ver`). */
export interface IssuedAccountSession {
  readonly accessToken: Uint8Array;
  readonly refreshToken: Uint8Array;
  /** Unix seconds. */
  readonly accessExpiresAt: number;
  readonly refreshExpiresAt: number;
}

/** The outcome of {@link AccountSessions.login}. */
export type LoginOutcome =
  | { readonly kind: 'session'; readonly session: IssuedAccountSession }
  /** Wrong password, unknown email or product, or an account that is not active: one answer for all. */
  | { readonly kind: 'invalid_credentials' }
  /** A login gate is locked (the account's or the client address's). */
  | { readonly kind: 'locked'; readonly retryAfterSeconds: number };

/** The outcome of {@link AccountSessions.refresh}. */
export type RefreshOutcome =
  | { readonly kind: 'session'; readonly session: IssuedAccountSession }
  /** Unknown, expired, spent (the family is now revoked) or of a revoked family: log in again. */
  | { readonly kind: 'needs_login' };

/** Options of {@link createAccountSessions}. */
export interface AccountSessionsOptions {
  readonly sql: SqlClient;
  /** The 32-byte `LICENSE_MASTER_KEY` (the token and gate subkeys are derived from it). */
  readonly masterKey: Uint8Array;
  readonly clock?: Clock;
  /** Access token lifetime in seconds (default 900). */
  readonly accessTtlSeconds?: number;
  /** Refresh token lifetime in seconds, renewed by each rotation (default 30 days). */
  readonly refreshTtlSeconds?: number;
  /** Login gates (default {@link defaultLoginGateRules}); `address: null` turns the per-address gate off. */
  readonly gates?: { readonly account?: LoginGateRule; readonly address?: LoginGateRule | null };
  /**
   * The cost of the stand-in hash verified when no account matches (default `accountPasswordCost`, the
   * cost of every new account). It must equal that cost for unknown emails to take as long as known ones.
   */
  readonly unknownAccountCost?: ScryptParameters;
  /** The password check (default `verifyAccountPassword`). */
  readonly verifyPassword?: (stored: string, password: string) => Promise<boolean>;
}

/** Login, refresh and logout of end-user accounts; also the client protocol's {@link AccountTokenVerifier}. */
export interface AccountSessions extends AccountTokenVerifier {
  /**
   * Checks a password and starts a session family. `remoteAddress` feeds the per-address gate.
   * Never throws for bad credentials; only for storage failures.
   */
  login(request: { productId: string; email: string; password: string; remoteAddress?: string }): Promise<LoginOutcome>;
  /** Rotates a pair: the presented refresh token becomes spent; presenting a spent one revokes its family. */
  refresh(refreshToken: Uint8Array): Promise<RefreshOutcome>;
  /** Revokes the family a refresh token belongs to, if any. Answers the same either way. */
  logout(refreshToken: Uint8Array): Promise<void>;
  /** Deletes families whose refresh token expired and login-gate rows that are forgotten. */
  purge(): Promise<{ sessions: number; gates: number }>;
}

const defaultAccessTtlSeconds = 900;
const defaultRefreshTtlSeconds = 30 * 86_400;

function assertTtl(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1 || value > 366 * 86_400) throw new RangeError(`${name} must be an integer number of seconds from 1 to 366 days`);
}

/**
 * A well-formed hash of a random secret at `cost`: verifying any password against it costs exactly what
 * verifying against an account's hash costs, and nothing verifies (no one knows a preimage).
 */
function standInHash(cost: ScryptParameters): string {
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${base64UrlEncode(randomBytes(16))}$${base64UrlEncode(randomBytes(32))}`;
}

/**
 * The account sessions of the client protocol over SQL.
 *
 * - **login**: both gates are charged first (per address, then per account; a locked gate answers
 *   `locked` before any KDF runs). The password is then verified against the account's hash or, when no
 *   active account of that product has that email, against a stand-in hash of the same cost: unknown,
 *   revoked and known accounts take the same time and the same gate path. A correct password clears the
 *   account's gate, refunds the address's charge, and returns a new pair (32 random bytes each).
 * - **refresh**: rotates the pair of the family whose live refresh token it is; a spent token revokes
 *   its family (reuse detection, in SQL, safe under concurrent refreshes).
 * - **logout**: revokes the family of a live or spent refresh token.
 * - **verifyAccessToken**: the {@link AccountTokenVerifier} the activation route resolves `{1: token}` with.
 *
 * Tokens are stored only as keyed hashes under subkeys of the master key.
 *
 * @param options - Database, master key, clock, lifetimes and gates.
 * @returns The sessions service.
 * @example
 * ```ts
 * import { createAccountSessions } from '@tollgate/core/license';
 * const accountSessions = createAccountSessions({ sql, masterKey });
 * const outcome = await accountSessions.login({ productId, email, password, remoteAddress });
 * ```
 */
export function createAccountSessions(options: AccountSessionsOptions): AccountSessions {
  const clock = options.clock ?? systemClock;
  const keys = deriveAccountSessionKeys(options.masterKey);
  const accessTtl = options.accessTtlSeconds ?? defaultAccessTtlSeconds;
  const refreshTtl = options.refreshTtlSeconds ?? defaultRefreshTtlSeconds;
  assertTtl('accessTtlSeconds', accessTtl);
  assertTtl('refreshTtlSeconds', refreshTtl);
  const accountRule = options.gates?.account ?? defaultLoginGateRules.account;
  const addressRule = options.gates?.address === undefined ? defaultLoginGateRules.address : options.gates.address;
  assertLoginGateRule(accountRule);
  if (addressRule !== null) assertLoginGateRule(addressRule);
  const verifyPassword = options.verifyPassword ?? verifyAccountPassword;
  const unknownAccountHash = standInHash(options.unknownAccountCost ?? accountPasswordCost);
  const store = createSqlAccountSessionStore(options.sql);
  const gates = createSqlLoginGateStore(options.sql);

  const mint = (nowSeconds: number): { session: IssuedAccountSession; stored: StoredTokenPair } => {
    const accessToken = randomBytes(licenseWireLengths.token);
    const refreshToken = randomBytes(licenseWireLengths.token);
    const accessExpiresAt = nowSeconds + accessTtl;
    const refreshExpiresAt = nowSeconds + refreshTtl;
    return {
      session: { accessToken, refreshToken, accessExpiresAt, refreshExpiresAt },
      stored: {
        accessHash: accountTokenHash(keys, 'access', accessToken),
        accessExpiresAt: new Date(accessExpiresAt * 1000),
        refreshHash: accountTokenHash(keys, 'refresh', refreshToken),
        refreshExpiresAt: new Date(refreshExpiresAt * 1000),
      },
    };
  };

  return {
    async login({ productId, email, password, remoteAddress }) {
      const nowSeconds = Math.floor(clock.now() / 1000);
      const normalizedEmail = normalizeAccountEmail(email);
      const address = addressRule === null ? undefined : loginGateAddress(remoteAddress);
      const addressKey = address === undefined ? undefined : addressGateKey(keys, address);
      if (addressKey !== undefined && addressRule !== null) {
        const decision = await gates.charge(addressKey, nowSeconds, addressRule);
        if (!decision.allowed) return { kind: 'locked', retryAfterSeconds: decision.retryAfterSeconds };
      }
      const accountKey = accountGateKey(keys, productId, normalizedEmail);
      const decision = await gates.charge(accountKey, nowSeconds, accountRule);
      if (!decision.allowed) return { kind: 'locked', retryAfterSeconds: decision.retryAfterSeconds };

      const account = await store.findLoginAccount(productId, normalizedEmail);
      const usable = account !== undefined && account.status === 'active';
      // Always one KDF run at the account's cost: the stand-in hash when there is no usable account.
      const matches = await verifyPassword(usable ? account.passwordHash : unknownAccountHash, password);
      if (!usable || !matches) return { kind: 'invalid_credentials' };

      const minted = mint(nowSeconds);
      const created = await store.create({ sessionId: randomId(), accountId: account.accountId, pair: minted.stored, createdAt: new Date(nowSeconds * 1000) });
      // Revoked between the lookup and the insert: the same answer as a revoked account.
      if (!created) return { kind: 'invalid_credentials' };
      await gates.clear(accountKey);
      if (addressKey !== undefined && addressRule !== null) await gates.refund(addressKey, addressRule);
      return { kind: 'session', session: minted.session };
    },

    async refresh(refreshToken) {
      const nowSeconds = Math.floor(clock.now() / 1000);
      const minted = mint(nowSeconds);
      const outcome = await store.rotate(accountTokenHash(keys, 'refresh', refreshToken), minted.stored, new Date(nowSeconds * 1000));
      return outcome.kind === 'rotated' ? { kind: 'session', session: minted.session } : { kind: 'needs_login' };
    },

    async logout(refreshToken) {
      await store.revokeFamily(accountTokenHash(keys, 'refresh', refreshToken), new Date(clock.now()), 'logout');
    },

    async verifyAccessToken(productId, accessToken): Promise<AccountTokenIdentity | undefined> {
      if (!(accessToken instanceof Uint8Array) || accessToken.length !== licenseWireLengths.token) return undefined;
      return store.resolveAccess(productId, accountTokenHash(keys, 'access', accessToken), new Date(clock.now()));
    },

    async purge() {
      const now = clock.now();
      const forget = Math.max(accountRule.forgetAfterSeconds, addressRule?.forgetAfterSeconds ?? 0);
      const sessions = await store.purgeExpired(new Date(now));
      const gateRows = await gates.purge(Math.floor(now / 1000), forget);
      return { sessions, gates: gateRows };
    },
  };
}
