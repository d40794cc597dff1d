import { createRemoteJWKSet, customFetch, errors, jwtVerify, type FetchImplementation, type JWTPayload } from 'jose';

/**
 * Which CI identities may sign for which product: a token whose repository claim equals `repository`
 * (case-insensitive, as GitHub treats names) and whose ref claim matches `ref` (exact, or a prefix when it
 * ends in `*`, e.g. `refs/tags/v*`) acts for `productId` (and so for that product's vendor).
 */
export interface CiOidcBinding {
  readonly repository: string;
  readonly ref: string;
  readonly productId: string;
}

/** How CI OIDC tokens are checked (the license server reads them from `INTEGRITY_OIDC_*`). */
export interface CiOidcSettings {
  /** Exact `iss` (GitHub Actions: `https://token.actions.githubusercontent.com`). */
  readonly issuer: string;
  /** Exact `aud` the workflow requests (`core.getIDToken(audience)`). */
  readonly audience: string;
  /** The provider's JSON Web Key Set. */
  readonly jwksUrl: string;
  readonly bindings: readonly CiOidcBinding[];
  /** Claim naming the repository (`repository` on GitHub). */
  readonly repositoryClaim: string;
  /** Claim naming the git ref (`ref` on GitHub). */
  readonly refClaim: string;
  /** Abort a key-set fetch after this long. */
  readonly jwksTimeoutMs: number;
  /** Refuse a key set larger than this. */
  readonly jwksMaxBytes: number;
  /** Refetch the key set at least this often. */
  readonly jwksCacheMs: number;
  /** Never fetch more often than this, even for unknown `kid`s (an attacker's tokens cannot make us hammer the provider). */
  readonly jwksCooldownMs: number;
  /** Leeway for `exp`, `nbf` and `iat`. */
  readonly clockToleranceSeconds: number;
}

/** The longest a CI token may have been valid when presented (GitHub's live about ten minutes). */
export const ciOidcMaxTokenAgeSeconds = 3600;

/** What checking a CI token found. Expected failures are values, never exceptions. */
export type CiOidcOutcome =
  | { readonly kind: 'admitted'; readonly repository: string; readonly ref: string; readonly subject: string; readonly productIds: readonly string[] }
  | { readonly kind: 'refused'; readonly reason: CiOidcRefusal; readonly message: string }
  /** The key set could not be fetched (timeout, too large, not 200): a passing problem, not the token's. */
  | { readonly kind: 'unavailable'; readonly message: string };

/** Why a CI token was refused. */
export type CiOidcRefusal = 'malformed' | 'algorithm' | 'unknown_key' | 'signature' | 'expired' | 'issuer' | 'audience' | 'claims' | 'not_bound';

const jwtShape = /^[A-Za-z0-9_-]{2,4096}\.[A-Za-z0-9_-]{2,8192}\.[A-Za-z0-9_-]{0,4096}$/;

/**
 * Checks RS256 OIDC tokens of a CI provider against its JWKS, then maps the repository and ref claims to
 * products. Only RS256 is accepted: an HS256 token (signed with the public key as an HMAC secret) or an
 * unsecured `none` token is refused before any key is used. The key set is fetched lazily, cached for
 * `jwksCacheMs`, refetched when a token names an unknown `kid` (at most once per `jwksCooldownMs`), and
 * every fetch is bounded in time and size.
 *
 * @example
 * ```ts
 * import { CiOidcVerifier } from '@tollgate/core/license';
 * const verifier = new CiOidcVerifier({ issuer: 'https://token.actions.githubusercontent.com', audience: 'tollgate', jwksUrl: 'https://token.actions.githubusercontent.com/.well-known/jwks',
 *   bindings: [{ repository: 'acme/editor', ref: 'refs/tags/v*', productId }], repositoryClaim: 'repository', refClaim: 'ref',
 *   jwksTimeoutMs: 5000, jwksMaxBytes: 65536, jwksCacheMs: 600_000, jwksCooldownMs: 30_000, clockToleranceSeconds: 30 });
 * const outcome = await verifier.verify(token, new Date());
 * ```
 */
export class CiOidcVerifier {
  readonly #settings: CiOidcSettings;
  readonly #keys: ReturnType<typeof createRemoteJWKSet>;

  /**
   * @param settings - Issuer, audience, key set and bindings.
   * @param fetchImpl - The fetch to use (tests pass one; defaults to the global `fetch`).
   */
  constructor(settings: CiOidcSettings, fetchImpl: typeof fetch = fetch) {
    this.#settings = settings;
    this.#keys = createRemoteJWKSet(new URL(settings.jwksUrl), {
      timeoutDuration: settings.jwksTimeoutMs,
      cooldownDuration: settings.jwksCooldownMs,
      cacheMaxAge: settings.jwksCacheMs,
      [customFetch]: boundedFetch(fetchImpl, settings.jwksMaxBytes),
    });
  }

  /**
   * @param token - The bearer credential.
   * @param now - The server's time (tokens are checked against it).
   * @returns The CI identity and the products it may sign for, or why not.
   */
  async verify(token: string, now: Date): Promise<CiOidcOutcome> {
    if (!jwtShape.test(token)) return refused('malformed', 'The bearer credential is not a JWT.');
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.#keys, {
        algorithms: ['RS256'],
        issuer: this.#settings.issuer,
        audience: this.#settings.audience,
        currentDate: now,
        clockTolerance: this.#settings.clockToleranceSeconds,
        maxTokenAge: ciOidcMaxTokenAgeSeconds,
        requiredClaims: ['exp', 'iat', 'sub'],
      }));
    } catch (error) {
      return outcomeOfError(error);
    }
    const repository = payload[this.#settings.repositoryClaim];
    const ref = payload[this.#settings.refClaim];
    if (typeof repository !== 'string' || typeof ref !== 'string' || repository.length === 0 || ref.length === 0) {
      return refused('claims', `The CI token lacks the ${this.#settings.repositoryClaim} or ${this.#settings.refClaim} claim.`);
    }
    const productIds = this.#settings.bindings.filter((binding) => binding.repository.toLowerCase() === repository.toLowerCase() && refMatches(binding.ref, ref)).map((binding) => binding.productId);
    if (productIds.length === 0) return refused('not_bound', 'This repository and ref are not allowed to sign manifests.');
    return { kind: 'admitted', repository, ref, subject: String(payload.sub), productIds: [...new Set(productIds)] };
  }
}

function refMatches(pattern: string, ref: string): boolean {
  return pattern.endsWith('*') ? ref.startsWith(pattern.slice(0, -1)) : ref === pattern;
}

function refused(reason: CiOidcRefusal, message: string): CiOidcOutcome {
  return { kind: 'refused', reason, message };
}

/** Maps jose's errors to named refusals; anything not about the token is the key set being unavailable. */
function outcomeOfError(error: unknown): CiOidcOutcome {
  // jose reports a token older than maxTokenAge as expired too, naming the iat claim.
  if (error instanceof errors.JWTExpired) return refused('expired', error.claim === 'iat' ? `The CI token was issued more than ${ciOidcMaxTokenAgeSeconds} seconds ago (iat).` : 'The CI token has expired.');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return refused('issuer', 'The CI token has another issuer.');
    if (error.claim === 'aud') return refused('audience', 'The CI token is for another audience.');
    return refused('claims', `The CI token's ${error.claim} claim is not acceptable.`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return refused('algorithm', 'Only RS256 CI tokens are accepted.');
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) return refused('unknown_key', 'No key of the CI provider matches the token.');
  if (error instanceof errors.JWSSignatureVerificationFailed) return refused('signature', 'The CI token signature does not verify.');
  if (error instanceof errors.JWKSTimeout || error instanceof KeySetTooLarge || error instanceof errors.JWKSInvalid || !(error instanceof errors.JOSEError)) {
    return { kind: 'unavailable', message: 'The CI provider’s key set could not be fetched.' };
  }
  // A JOSE error on a structurally broken token (JWSInvalid, JWTInvalid) or a non-200 key-set answer.
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return refused('malformed', 'The bearer credential is not a valid JWT.');
  return { kind: 'unavailable', message: 'The CI provider’s key set could not be fetched.' };
}

class KeySetTooLarge extends Error {
  override readonly name = 'KeySetTooLarge';
}

/** A fetch that refuses a key set over `maxBytes` (declared or streamed) before parsing it. */
function boundedFetch(fetchImpl: typeof fetch, maxBytes: number): FetchImplementation {
  return async (url, options) => {
    const response = await fetchImpl(url, options);
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new KeySetTooLarge(`The key set is larger than ${maxBytes} bytes.`);
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    const reader = response.body?.getReader();
    for (;;) {
      const step = reader === undefined ? { done: true as const, value: undefined } : await reader.read();
      if (step.done) break;
      total += step.value.byteLength;
      if (total > maxBytes) {
        await reader?.cancel().catch(() => undefined);
        throw new KeySetTooLarge(`The key set is larger than ${maxBytes} bytes.`);
      }
      chunks.push(step.value);
    }
    const body = new Uint8Array(total);
    let offset = 0;
    for (const chunk of chunks) {
      body.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return new Response(body, { status: response.status, headers: response.headers });
  };
}
