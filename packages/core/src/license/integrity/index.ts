// Public exports of the integrity area: manifests, signer keys, CI OIDC and the Admin operations.
export {
  encodeIntegrityManifest,
  integrityManifestLimits,
  integrityManifestSignatureLabel,
  integrityManifestSigningMessage,
  integritySignerFingerprint,
  integritySignerFingerprintLabel,
  IntegrityManifestError,
  parseIntegrityManifest,
  type IntegrityManifest,
  type IntegrityManifestFile,
} from './manifest';
export { integritySignerSealSubkeyLabel, IntegritySignerSeal, type IntegritySignerKey } from './signer-keys';
export { CiOidcVerifier, ciOidcMaxTokenAgeSeconds, type CiOidcBinding, type CiOidcOutcome, type CiOidcRefusal, type CiOidcSettings } from './ci-oidc';
export { ciOidcAuthentication } from './ci-oidc-authentication';
export { integrityKeyView, integrityOperations, signerKeyHeader, type IntegrityOperationsDeps } from './integrity-operations';
