export {
  accountPasswordCost,
  accountPasswordLength,
  accountPasswordProblem,
  hashAccountPassword,
  normalizeAccountPassword,
  verifyAccountPassword,
  type ScryptParameters,
} from './account-password';
export {
  createSqlAccountStore,
  normalizeAccountEmail,
  type AccountListQuery,
  type AccountRecord,
  type AccountStatus,
  type AccountStore,
  type CreateAccountOutcome,
  type NewAccount,
} from './account-store';
