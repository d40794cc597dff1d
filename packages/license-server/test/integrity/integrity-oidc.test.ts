/**
 * `POST /v1/admin/integrity/sign` with CI OIDC tokens: RS256 JWTs minted from locally generated RSA keys,
 * checked against a JWKS served on loopback, configured through `INTEGRITY_OIDC_*` exactly as an operator
 * would. Every refusal is a 401 `invalid_token` (403 for a product the identity is not bound to, 503 when
 * the key set cannot be fetched), and the token opens no other Admin route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId, verifyEd25519 } from '@tollgate/core/crypto';
import { integrityManifestSigningMessage } from '@tollgate/core/license';
import type { AdminHarness } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { ciClaims, manifestFor, mintJwt, openOidcBench, registerKey, rsaSigner, signRequest, type JwksServer, type RsaSigner } from './integrity-fixtures';

for (const engine of serverEngines) {
  describe(`Integrity signing with CI OIDC tokens [${engine.name}]`, () => {
    let bench: AdminHarness;
    let jwks: JwksServer;
    let ci: RsaSigner;
    let manifest: Uint8Array;
    let publicKey: Uint8Array;
    const boundProduct = randomId();

    beforeAll(async () => {
      ({ bench, jwks, ci } = await openOidcBench(engine, `acme/editor@refs/heads/main=${boundProduct},acme/editor@refs/tags/v*=${boundProduct}`, {
        INTEGRITY_OIDC_JWKS_COOLDOWN_SECONDS: '0',
        INTEGRITY_OIDC_JWKS_TIMEOUT_MS: '300',
        INTEGRITY_OIDC_JWKS_MAX_BYTES: '16384',
      }));
      // The product the CI identity is bound to (configured before it exists, as an operator may).
      await bench.sql.query('INSERT INTO license_products (product_id, vendor_id, name, created_at, updated_at) VALUES ($1, $2, $3, now(), now())', [boundProduct, bench.vendorA.vendorId, 'Bound product']);
      const key = await registerKey(bench, boundProduct);
      publicKey = key.publicKey;
      manifest = manifestFor(boundProduct, key.fingerprint);
    }, 60_000);
    afterAll(async () => {
      await bench?.close();
      await jwks?.close();
    });

    const refusal = async (response: Response) => {
      const body = await response.json();
      return [response.status, body.error.code, body.error.message] as [number, string, string];
    };

    it('signs with a valid token of a bound repository and ref, audited under the CI identity', async () => {
      for (const ref of ['refs/heads/main', 'refs/tags/v2.0.1']) {
        const response = await signRequest(bench, manifest, { credential: mintJwt(ciClaims({ ref }), { rs256: ci }) });
        expect(response.status, ref).toBe(200);
        expect(verifyEd25519(publicKey, integrityManifestSigningMessage(manifest), new Uint8Array(await response.arrayBuffer()))).toBe(true);
      }
      const { rows } = await bench.sql.query<{ actor: string; summary: string | Record<string, unknown> }>("SELECT actor, summary FROM license_audit_events WHERE vendor_id = $1 AND action = 'integrity.sign' ORDER BY seq DESC LIMIT 1", [bench.vendorA.vendorId]);
      const summary = typeof rows[0]?.summary === 'string' ? JSON.parse(rows[0].summary) : rows[0]?.summary;
      expect(rows[0]?.actor).toBe('oidc:acme/editor');
      expect(summary).toMatchObject({ via: 'alternative', repository: 'acme/editor', ref: 'refs/tags/v2.0.1', product_id: boundProduct });
    });

    it('refuses a wrong audience, a wrong issuer, an expired token and missing claims', async () => {
      const now = Math.floor(Date.now() / 1000);
      const cases: [string, Record<string, unknown>, RegExp][] = [
        ['wrong audience', ciClaims({ aud: 'someone-else' }), /audience/],
        ['wrong issuer', ciClaims({ iss: 'https://evil.example' }), /issuer/],
        ['expired', ciClaims({ iat: now - 900, nbf: now - 900, exp: now - 300 }), /expired/],
        ['no repository claim', ciClaims({ repository: undefined }), /repository/],
        ['too old', ciClaims({ iat: now - 7200, nbf: now - 7200, exp: now + 600 }), /iat/],
      ];
      for (const [what, claims, message] of cases) {
        const [status, code, text] = await refusal(await signRequest(bench, manifest, { credential: mintJwt(claims, { rs256: ci }) }));
        expect([status, code], what).toEqual([401, 'invalid_token']);
        expect(text, what).toMatch(message);
      }
    });

    it('refuses a token of an unknown kid after refetching the key set, and accepts a key added to it since', async () => {
      const fetchesBefore = jwks.fetches;
      const stranger = rsaSigner();
      const [status, code, text] = await refusal(await signRequest(bench, manifest, { credential: mintJwt(ciClaims(), { rs256: stranger }) }));
      expect([status, code]).toEqual([401, 'invalid_token']);
      expect(text).toMatch(/No key/);
      expect(jwks.fetches).toBeGreaterThan(fetchesBefore);

      const rotated = rsaSigner();
      jwks.keys = [ci.jwk, rotated.jwk];
      const accepted = await signRequest(bench, manifest, { credential: mintJwt(ciClaims(), { rs256: rotated }) });
      expect(accepted.status).toBe(200);
    });

    it('refuses a token signed by another key under a known kid, and HS256 and none downgrades', async () => {
      const impostor = rsaSigner();
      const wrongKey = await refusal(await signRequest(bench, manifest, { credential: mintJwt(ciClaims(), { rs256: impostor, kid: ci.kid }) }));
      expect(wrongKey.slice(0, 2)).toEqual([401, 'invalid_token']);
      expect(wrongKey[2]).toMatch(/signature/);
      // The classic downgrade: an HMAC keyed with the provider's public key, in each form an attacker might guess.
      for (const secret of [JSON.stringify(ci.jwk), String(ci.jwk['n']), ci.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()]) {
        const hs256 = await refusal(await signRequest(bench, manifest, { credential: mintJwt(ciClaims(), { hs256: secret, kid: ci.kid }) }));
        expect(hs256.slice(0, 2)).toEqual([401, 'invalid_token']);
        expect(hs256[2]).toMatch(/RS256/);
      }
      const none = await refusal(await signRequest(bench, manifest, { credential: mintJwt(ciClaims(), { none: true, kid: ci.kid }) }));
      expect(none.slice(0, 2)).toEqual([401, 'invalid_token']);
    });

    it('refuses a repository or ref that is not bound, and a product the identity is not bound to', async () => {
      for (const claims of [ciClaims({ repository: 'acme/other' }), ciClaims({ ref: 'refs/heads/feature' }), ciClaims({ ref: 'refs/pull/7/merge' })]) {
        const [status, code, text] = await refusal(await signRequest(bench, manifest, { credential: mintJwt(claims, { rs256: ci }) }));
        expect([status, code]).toEqual([401, 'invalid_token']);
        expect(text).toMatch(/not allowed/);
      }
      const otherProduct = bench.vendorA.productId;
      const keyOfOther = await registerKey(bench, otherProduct);
      const [status, code] = await refusal(await signRequest(bench, manifestFor(otherProduct, keyOfOther.fingerprint), { credential: mintJwt(ciClaims(), { rs256: ci }) }));
      expect([status, code]).toEqual([403, 'insufficient_scope']);
    });

    it('opens no other Admin route with a CI token', async () => {
      const token = mintJwt(ciClaims(), { rs256: ci });
      for (const [method, path] of [['GET', '/integrity/keys'], ['POST', '/integrity/keys'], ['GET', '/licenses']] as const) {
        const answer = await bench.call(method, path, { token, ...(method === 'POST' ? { body: { product_id: boundProduct } } : {}) });
        expect([answer.status, answer.body.error.code], path).toEqual([401, 'invalid_token']);
      }
    });

    it('answers 503 when the key set is oversized or does not arrive in time, and recovers', async () => {
      for (const mode of ['huge', 'slow'] as const) {
        jwks.mode = mode;
        const response = await signRequest(bench, manifest, { credential: mintJwt(ciClaims(), { rs256: rsaSigner() }) });
        const [status, code] = await refusal(response);
        expect([status, code], mode).toEqual([503, 'service_unavailable']);
      }
      jwks.mode = 'normal';
      const recovered = await signRequest(bench, manifest, { credential: mintJwt(ciClaims(), { rs256: ci }) });
      expect(recovered.status).toBe(200);
    });
  });
}
