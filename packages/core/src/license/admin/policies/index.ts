export { policyOperations, type PolicyOperationsDeps } from './policy-operations';
