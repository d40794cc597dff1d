export { compareSemVer, isSemVer, maxSemVerLength, semVerPattern } from './semver';
export {
  policyCreateSchema,
  policyDefaults,
  policyDocument,
  policyLimits,
  policyReplaceSchema,
  policyRuleProblems,
  type PolicyDocument,
  type PolicyExpiryBehavior,
  type PolicyVersionScope,
} from './policy-document';
export { policyWarningCodes, policyWarnings } from './policy-warnings';
export { createSqlPolicyStore, type CreatePolicyOutcome, type PolicyRecord, type PolicyStore, type PolicyVersionRecord } from './policy-store';
