/**
 * Fixtures of the integrity tests: manifests, a raw `POST /integrity/sign` call, RS256/HS256/none JWTs
 * minted with node:crypto, and a JWKS served on loopback whose answer the test can change.
 */
import { createHmac, createPrivateKey, generateKeyPairSync, sign as rsaSign, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeIntegrityManifest, hexDecode, sha256 } from '@tollgate/core';
import { randomBytes, utf8Encode } from '@tollgate/core/crypto';
import type { TestEngine } from '@tollgate/core/testing';
import { freshKey, openAdminHarness, type AdminHarness } from '../admin/admin-harness';

/** A valid manifest of `productId` naming `fingerprint` (hex) as its signer. */
export function manifestFor(productId: string, fingerprint: string, options: { files?: number; appVersion?: string } = {}): Uint8Array {
  const files = Array.from({ length: options.files ?? 3 }, (_, n) => ({ path: `bin/file-${String(n).padStart(5, '0')}.js`, sha256: sha256(utf8Encode(`file ${n}`)), size: 100 + n }));
  return encodeIntegrityManifest({ v: 1, productId, signerKey: hexDecode(fingerprint), appVersion: options.appVersion ?? '1.4.2', files, build: 'run-42' });
}

/** Registers a signer key of `productId` and returns its fingerprint and public key. */
export async function registerKey(bench: AdminHarness, productId: string, token?: string): Promise<{ fingerprint: string; publicKey: Uint8Array }> {
  const answer = await bench.call('POST', '/integrity/keys', { body: { product_id: productId, label: 'ci' }, key: freshKey(), ...(token === undefined ? {} : { token }) });
  if (answer.status !== 201) throw new Error(`register answered ${answer.status}: ${answer.text}`);
  return { fingerprint: answer.body.key.fingerprint, publicKey: hexDecode(answer.body.key.public_key_hex) };
}

/** `POST /v1/admin/integrity/sign` with a raw body. */
export function signRequest(bench: AdminHarness, body: Uint8Array | string, options: { credential?: string | null; contentType?: string } = {}): Promise<Response> {
  const credential = options.credential === undefined ? bench.vendorA.token : options.credential;
  return fetch(new URL('/v1/admin/integrity/sign', bench.url), {
    method: 'POST',
    headers: { 'content-type': options.contentType ?? 'application/octet-stream', ...(credential === null ? {} : { authorization: `Bearer ${credential}` }) },
    body: body as BodyInit,
  });
}

const base64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');

/** An RSA key with a `kid`. */
export interface RsaSigner {
  readonly kid: string;
  readonly privateKey: KeyObject;
  /** The public JWK as a JWKS lists it. */
  readonly jwk: Record<string, unknown>;
}

/** Generates a 2048-bit RSA key. */
export function rsaSigner(kid = `kid-${Buffer.from(randomBytes(6)).toString('hex')}`): RsaSigner {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } };
}

/** GitHub-Actions-like claims, valid for ten minutes from `nowSeconds`. */
export function ciClaims(overrides: Record<string, unknown> = {}, nowSeconds = Math.floor(Date.now() / 1000)): Record<string, unknown> {
  return { iss: 'http://127.0.0.1/issuer', aud: 'tollgate-test', sub: 'repo:acme/editor:ref:refs/heads/main', repository: 'acme/editor', ref: 'refs/heads/main', iat: nowSeconds - 5, nbf: nowSeconds - 5, exp: nowSeconds + 600, ...overrides };
}

/** A compact JWS: RS256 with `signer`, HS256 with `hmacSecret`, or `none`. */
export function mintJwt(claims: Record<string, unknown>, how: { rs256: RsaSigner; kid?: string } | { hs256: Uint8Array | string; kid: string } | { none: true; kid: string }): string {
  const alg = 'rs256' in how ? 'RS256' : 'hs256' in how ? 'HS256' : 'none';
  const kid = 'rs256' in how ? (how.kid ?? how.rs256.kid) : how.kid;
  const input = `${base64url(JSON.stringify({ alg, typ: 'JWT', kid }))}.${base64url(JSON.stringify(claims))}`;
  if ('rs256' in how) return `${input}.${base64url(rsaSign('sha256', Buffer.from(input), createPrivateKey(how.rs256.privateKey.export({ format: 'pem', type: 'pkcs8' }))))}`;
  if ('hs256' in how) return `${input}.${base64url(createHmac('sha256', how.hs256).update(input).digest())}`;
  return `${input}.`;
}

/** A JWKS on loopback: `keys` is what it serves; `mode` makes it oversized or slow; `fetches` counts requests. */
export interface JwksServer {
  readonly url: string;
  keys: Record<string, unknown>[];
  mode: 'normal' | 'huge' | 'slow';
  fetches: number;
  close(): Promise<void>;
}

/** Starts a JWKS server on 127.0.0.1. */
export async function startJwksServer(keys: Record<string, unknown>[]): Promise<JwksServer> {
  const state = { keys, mode: 'normal' as JwksServer['mode'], fetches: 0 };
  const server: Server = createServer((_request, response) => {
    state.fetches += 1;
    if (state.mode === 'slow') return; // never answers: the fetch deadline must end it
    const body = state.mode === 'huge' ? JSON.stringify({ keys: state.keys, padding: 'x'.repeat(200_000) }) : JSON.stringify({ keys: state.keys });
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  return Object.assign(state, {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** A bench admitting CI OIDC callers, the JWKS it trusts, and the CI identity's key that JWKS serves. */
export interface OidcBench {
  readonly bench: AdminHarness;
  readonly jwks: JwksServer;
  readonly ci: RsaSigner;
}

/**
 * Starts a JWKS on loopback serving a fresh CI key, and a server whose OIDC issuer and audience are the
 * ones {@link ciClaims} mints. Close both `bench` and `jwks` in `afterAll`.
 *
 * @param engine - PGlite or the PostgreSQL server.
 * @param bindings - `INTEGRITY_OIDC_BINDINGS` (repository@ref=product, comma-separated).
 * @param extraEnv - More `INTEGRITY_OIDC_*` settings.
 * @returns The bench, the JWKS and the CI key.
 */
export async function openOidcBench(engine: TestEngine, bindings: string, extraEnv: Record<string, string> = {}): Promise<OidcBench> {
  const ci = rsaSigner();
  const jwks = await startJwksServer([ci.jwk]);
  const bench = await openAdminHarness(engine, {
    INTEGRITY_OIDC_ISSUER: 'http://127.0.0.1/issuer',
    INTEGRITY_OIDC_AUDIENCE: 'tollgate-test',
    INTEGRITY_OIDC_JWKS_URL: jwks.url,
    INTEGRITY_OIDC_BINDINGS: bindings,
    ...extraEnv,
  });
  return { bench, jwks, ci };
}
