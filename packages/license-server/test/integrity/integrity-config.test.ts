import { describe, expect, it } from 'vitest';
import { ConfigError } from '@tollgate/core';
import { parseIntegrityConfig } from '../../src/config/integrity-config';

const product = 'cd'.repeat(16);
const github = { INTEGRITY_OIDC_ISSUER: 'https://token.actions.githubusercontent.com', INTEGRITY_OIDC_AUDIENCE: 'https://license.example.com', INTEGRITY_OIDC_BINDINGS: `acme/editor@refs/heads/main=${product}, acme/editor@refs/tags/v*=${product}` };

const problemsOf = (env: Record<string, string>) => {
  try {
    parseIntegrityConfig(env);
    return [];
  } catch (error) {
    return error instanceof ConfigError ? error.problems.map((problem) => problem.variable) : ['not a ConfigError'];
  }
};

describe('INTEGRITY_OIDC_* settings', () => {
  it('leaves OIDC off without an issuer', () => {
    expect(parseIntegrityConfig({})).toEqual({ oidc: undefined });
  });

  it('reads a GitHub Actions setup with its defaults', () => {
    const { oidc } = parseIntegrityConfig(github);
    expect(oidc).toMatchObject({
      issuer: github.INTEGRITY_OIDC_ISSUER,
      audience: github.INTEGRITY_OIDC_AUDIENCE,
      jwksUrl: 'https://token.actions.githubusercontent.com/.well-known/jwks',
      repositoryClaim: 'repository',
      refClaim: 'ref',
      jwksTimeoutMs: 5000,
      jwksMaxBytes: 65_536,
      jwksCacheMs: 600_000,
      jwksCooldownMs: 30_000,
      clockToleranceSeconds: 30,
    });
    expect(oidc?.bindings).toEqual([
      { repository: 'acme/editor', ref: 'refs/heads/main', productId: product },
      { repository: 'acme/editor', ref: 'refs/tags/v*', productId: product },
    ]);
  });

  it('names every problem at once', () => {
    expect(problemsOf({ INTEGRITY_OIDC_ISSUER: 'https://issuer.example' })).toEqual(['INTEGRITY_OIDC_AUDIENCE', 'INTEGRITY_OIDC_BINDINGS']);
    expect(problemsOf({ ...github, INTEGRITY_OIDC_BINDINGS: 'acme/editor=' + product })).toEqual(['INTEGRITY_OIDC_BINDINGS']);
    expect(problemsOf({ ...github, INTEGRITY_OIDC_BINDINGS: `acme/editor@main=${product.toUpperCase()}` })).toEqual(['INTEGRITY_OIDC_BINDINGS']);
    expect(problemsOf({ ...github, INTEGRITY_OIDC_ISSUER: 'http://issuer.example' })).toEqual(['INTEGRITY_OIDC_ISSUER', 'INTEGRITY_OIDC_JWKS_URL']);
    expect(problemsOf({ ...github, INTEGRITY_OIDC_JWKS_URL: 'http://127.0.0.1:9999/jwks' })).toEqual([]);
    expect(problemsOf({ ...github, INTEGRITY_OIDC_JWKS_TIMEOUT_MS: '0' })).toEqual(['INTEGRITY_OIDC_JWKS_TIMEOUT_MS']);
  });
});
