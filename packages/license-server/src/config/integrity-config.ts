import { ConfigError } from '@tollgate/core';
import { envInteger, envString, parseEnv, type EnvRecord } from '@tollgate/core/config';
import type { CiOidcBinding, LicenseIntegrityConfig } from '@tollgate/core/license';

/** Settings of the integrity feature (the type lives in core: `LicenseIntegrityConfig`). */
export type IntegrityConfig = LicenseIntegrityConfig;

const bindingPattern = /^([A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100})@([\x21-\x2b\x2d-\x7e]{1,255})=([0-9a-f]{32})$/;

/**
 * Reads the integrity settings; throws `ConfigError` with every problem found.
 *
 * | Variable | Default | Meaning |
 * |---|---|---|
 * | `INTEGRITY_OIDC_ISSUER` | unset (OIDC off) | exact `iss` of CI tokens, `https://token.actions.githubusercontent.com` for GitHub Actions |
 * | `INTEGRITY_OIDC_AUDIENCE` | required with the issuer | exact `aud` the workflow requests |
 * | `INTEGRITY_OIDC_BINDINGS` | required with the issuer | comma-separated `owner/repo@ref=product_id`; a ref ending in `*` is a prefix (`refs/tags/v*`) |
 * | `INTEGRITY_OIDC_JWKS_URL` | `<issuer>/.well-known/jwks` | the provider's key set (https; http only on loopback) |
 * | `INTEGRITY_OIDC_REPOSITORY_CLAIM` | `repository` | claim holding `owner/repo` |
 * | `INTEGRITY_OIDC_REF_CLAIM` | `ref` | claim holding the git ref |
 * | `INTEGRITY_OIDC_JWKS_TIMEOUT_MS` | 5000 | key-set fetch deadline (100 to 30,000) |
 * | `INTEGRITY_OIDC_JWKS_MAX_BYTES` | 65536 | largest key set accepted (1,024 to 1,048,576) |
 * | `INTEGRITY_OIDC_JWKS_CACHE_SECONDS` | 600 | refetch the key set at least this often (60 to 86,400) |
 * | `INTEGRITY_OIDC_JWKS_COOLDOWN_SECONDS` | 30 | fetch at most this often, also for unknown `kid`s (0 to 3,600) |
 * | `INTEGRITY_OIDC_CLOCK_TOLERANCE_SECONDS` | 30 | leeway on `exp`/`iat`/`nbf` (0 to 300) |
 *
 * @param env - The process environment.
 * @returns The settings.
 *
 * @example
 * ```ts
 * import { parseIntegrityConfig } from '@tollgate/license-server';
 * const { oidc } = parseIntegrityConfig({ INTEGRITY_OIDC_ISSUER: 'https://token.actions.githubusercontent.com', INTEGRITY_OIDC_AUDIENCE: 'tollgate', INTEGRITY_OIDC_BINDINGS: `acme/editor@refs/tags/v*=${productId}` });
 * ```
 */
export function parseIntegrityConfig(env: EnvRecord): IntegrityConfig {
  const parsed = parseEnv(env, {
    INTEGRITY_OIDC_ISSUER: envString({ optional: true, pattern: /^https?:\/\/\S{1,500}$/, expected: 'the issuer URL of CI tokens' }),
    INTEGRITY_OIDC_AUDIENCE: envString({ optional: true, pattern: /^\S{1,256}$/, expected: 'the audience of CI tokens (1 to 256 characters)' }),
    INTEGRITY_OIDC_BINDINGS: envString({ optional: true }),
    INTEGRITY_OIDC_JWKS_URL: envString({ optional: true, pattern: /^https?:\/\/\S{1,1000}$/, expected: 'the URL of the CI provider’s JWKS' }),
    INTEGRITY_OIDC_REPOSITORY_CLAIM: envString({ default: 'repository', pattern: /^[A-Za-z0-9_.:-]{1,64}$/, expected: 'a claim name' }),
    INTEGRITY_OIDC_REF_CLAIM: envString({ default: 'ref', pattern: /^[A-Za-z0-9_.:-]{1,64}$/, expected: 'a claim name' }),
    INTEGRITY_OIDC_JWKS_TIMEOUT_MS: envInteger({ min: 100, max: 30_000, default: 5000 }),
    INTEGRITY_OIDC_JWKS_MAX_BYTES: envInteger({ min: 1024, max: 1_048_576, default: 65_536 }),
    INTEGRITY_OIDC_JWKS_CACHE_SECONDS: envInteger({ min: 60, max: 86_400, default: 600 }),
    INTEGRITY_OIDC_JWKS_COOLDOWN_SECONDS: envInteger({ min: 0, max: 3600, default: 30 }),
    INTEGRITY_OIDC_CLOCK_TOLERANCE_SECONDS: envInteger({ min: 0, max: 300, default: 30 }),
  });
  const issuer = parsed.INTEGRITY_OIDC_ISSUER;
  if (issuer === undefined) return { oidc: undefined };
  const problems: ConfigError['problems'] = [];
  const problem = (variable: string, expected: string, received: string | undefined) => problems.push({ variable, expected, received });
  if (!isSecureUrl(issuer)) problem('INTEGRITY_OIDC_ISSUER', 'an https URL (http only on a loopback host)', issuer);
  const jwksUrl = parsed.INTEGRITY_OIDC_JWKS_URL ?? `${issuer.replace(/\/+$/, '')}/.well-known/jwks`;
  if (!isSecureUrl(jwksUrl)) problem('INTEGRITY_OIDC_JWKS_URL', 'an https URL (http only on a loopback host)', jwksUrl);
  if (parsed.INTEGRITY_OIDC_AUDIENCE === undefined) problem('INTEGRITY_OIDC_AUDIENCE', 'the audience of CI tokens (required with INTEGRITY_OIDC_ISSUER)', undefined);
  const bindings = parseBindings(parsed.INTEGRITY_OIDC_BINDINGS);
  if (bindings === undefined) problem('INTEGRITY_OIDC_BINDINGS', '1 to 64 comma-separated owner/repo@ref=product_id (required with INTEGRITY_OIDC_ISSUER)', parsed.INTEGRITY_OIDC_BINDINGS);
  if (problems.length > 0 || bindings === undefined || parsed.INTEGRITY_OIDC_AUDIENCE === undefined) throw new ConfigError(problems);
  return {
    oidc: {
      issuer,
      audience: parsed.INTEGRITY_OIDC_AUDIENCE,
      jwksUrl,
      bindings,
      repositoryClaim: parsed.INTEGRITY_OIDC_REPOSITORY_CLAIM,
      refClaim: parsed.INTEGRITY_OIDC_REF_CLAIM,
      jwksTimeoutMs: parsed.INTEGRITY_OIDC_JWKS_TIMEOUT_MS,
      jwksMaxBytes: parsed.INTEGRITY_OIDC_JWKS_MAX_BYTES,
      jwksCacheMs: parsed.INTEGRITY_OIDC_JWKS_CACHE_SECONDS * 1000,
      jwksCooldownMs: parsed.INTEGRITY_OIDC_JWKS_COOLDOWN_SECONDS * 1000,
      clockToleranceSeconds: parsed.INTEGRITY_OIDC_CLOCK_TOLERANCE_SECONDS,
    },
  };
}

function parseBindings(text: string | undefined): CiOidcBinding[] | undefined {
  if (text === undefined) return undefined;
  const entries = text.split(',').map((entry) => entry.trim());
  if (entries.length > 64) return undefined;
  const bindings: CiOidcBinding[] = [];
  for (const entry of entries) {
    const match = bindingPattern.exec(entry);
    if (match === null) return undefined;
    bindings.push({ repository: match[1] as string, ref: match[2] as string, productId: match[3] as string });
  }
  return bindings;
}

function isSecureUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]');
}
