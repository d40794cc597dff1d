export type { AccountTokenIdentity, AccountTokenVerifier } from './account-token';
export {
  accountGateKey,
  accountSessionHashLabels,
  accountSessionKeyLabels,
  accountTokenHash,
  addressGateKey,
  deriveAccountSessionKeys,
  type AccountSessionKeys,
} from './account-session-keys';
export {
  assertLoginGateRule,
  defaultLoginGateRules,
  loginGateAddress,
  loginGateCharge,
  loginGateLockSeconds,
  loginGateRefund,
  type LoginGateDecision,
  type LoginGateRule,
  type LoginGateState,
} from './login-gate';
export { createSqlLoginGateStore, type LoginGateStore } from './sql-login-gate';
export {
  createSqlAccountSessionStore,
  type AccountSessionStore,
  type LoginAccount,
  type RotateOutcome,
  type StoredTokenPair,
} from './account-session-store';
export {
  createAccountSessions,
  type AccountSessions,
  type AccountSessionsOptions,
  type IssuedAccountSession,
  type LoginOutcome,
  type RefreshOutcome,
} from './account-sessions';
export { accountSessionRoutes } from './account-session-routes';
