/**
 * Integrity signing with Admin tokens, through HTTP against a real server: signer keys registered,
 * listed and revoked (dry run first), manifests signed and verified by the client SDK, and every refusal
 * (unregistered or revoked key, foreign product, malformed CBOR, oversized body) in the error envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode, hexEncode, sha256 } from '@tollgate/core';
import { encodeCanonical } from '@tollgate/core/cbor';
import { randomBytes, verifyEd25519 } from '@tollgate/core/crypto';
import { integrityManifestSigningMessage, integritySignerFingerprint } from '@tollgate/core/license';
import { verifyManifestSignature } from '@tollgate/client-sdk';
import { freshKey, openAdminHarness, type AdminHarness } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { manifestFor, registerKey, signRequest } from './integrity-fixtures';

for (const engine of serverEngines) {
  describe(`Integrity signing with Admin tokens [${engine.name}]`, () => {
    let bench: AdminHarness;
    let productA: string;
    beforeAll(async () => {
      bench = await openAdminHarness(engine);
      productA = bench.vendorA.productId;
    }, 60_000);
    afterAll(() => bench?.close());

    const auditActions = async () =>
      (await bench.sql.query<{ action: string; summary: string | Record<string, unknown> }>('SELECT action, summary FROM license_audit_events WHERE vendor_id = $1 ORDER BY seq', [bench.vendorA.vendorId])).rows.map((row) => ({
        action: row.action,
        summary: (typeof row.summary === 'string' ? JSON.parse(row.summary) : row.summary) as Record<string, unknown>,
      }));

    it('registers a key (public half only), replays the registration, and lists it per product', async () => {
      const key = freshKey();
      const registered = await bench.call('POST', '/integrity/keys', { body: { product_id: productA, label: 'release builds' }, key });
      expect(registered.status).toBe(201);
      const view = registered.body.key;
      expect(view).toMatchObject({ product_id: productA, algorithm: 'ed25519', label: 'release builds', status: 'registered', revoked_at: null });
      expect(view.fingerprint).toBe(hexEncode(integritySignerFingerprint(hexDecode(view.public_key_hex))));
      expect(JSON.stringify(registered.body)).not.toMatch(/seed|private/i);
      const replay = await bench.call('POST', '/integrity/keys', { body: { product_id: productA, label: 'release builds' }, key });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.key.fingerprint).toBe(view.fingerprint);
      const stored = await bench.sql.query<{ sealed_seed: Uint8Array; public_key: Uint8Array }>('SELECT sealed_seed, public_key FROM license_integrity_signer_keys WHERE fingerprint = $1', [view.fingerprint]);
      expect(stored.rows).toHaveLength(1);
      expect(stored.rows[0]?.sealed_seed.length).toBe(73);

      const listed = await bench.call('GET', '/integrity/keys', { query: { product_id: productA } });
      expect(listed.status).toBe(200);
      expect(listed.body.keys.map((k: { fingerprint: string }) => k.fingerprint)).toContain(view.fingerprint);
      const otherVendor = await bench.call('GET', '/integrity/keys', { token: bench.vendorB.token });
      expect(otherVendor.body.keys).toEqual([]);
      const foreignFilter = await bench.call('GET', '/integrity/keys', { token: bench.vendorB.token, query: { product_id: productA } });
      expect(foreignFilter.status).toBe(404);
      const foreignRegister = await bench.call('POST', '/integrity/keys', { token: bench.vendorB.token, body: { product_id: productA }, key: freshKey() });
      expect([foreignRegister.status, foreignRegister.body.error.code], foreignRegister.text).toEqual([404, 'not_found']);
      const unknownField = await bench.call('POST', '/integrity/keys', { body: { product_id: productA, public_key_hex: 'ab' }, key: freshKey() });
      expect([unknownField.status, unknownField.body.error.code]).toEqual([400, 'invalid_request']);
    });

    it('signs a manifest with the named registered key; the SDK verifies it and refuses a tampered manifest', async () => {
      const { fingerprint, publicKey } = await registerKey(bench, productA);
      const manifest = manifestFor(productA, fingerprint);
      const signEvents = async () => (await auditActions()).filter((event) => event.action === 'integrity.sign');
      const before = (await signEvents()).length;
      const response = await signRequest(bench, manifest);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
      expect(response.headers.get('x-ls-signer-key')).toBe(fingerprint);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const signature = new Uint8Array(await response.arrayBuffer());
      expect(signature).toHaveLength(64);
      expect(verifyEd25519(publicKey, integrityManifestSigningMessage(manifest), signature)).toBe(true);

      const verified = verifyManifestSignature({ manifest, signature, trustedKeys: [publicKey], productId: productA, signerFingerprint: fingerprint });
      expect(verified.valid).toBe(true);
      if (verified.valid) expect(verified.manifest.files).toHaveLength(3);
      const tampered = manifest.slice();
      tampered[tampered.length - 1]! ^= 0x01;
      expect(verifyManifestSignature({ manifest: tampered, signature, trustedKeys: [publicKey] })).toEqual({ valid: false, reason: 'bad_signature' });
      const otherKey = (await registerKey(bench, productA)).publicKey;
      expect(verifyManifestSignature({ manifest, signature, trustedKeys: [otherKey] })).toEqual({ valid: false, reason: 'bad_signature' });
      expect(verifyManifestSignature({ manifest, signature, trustedKeys: [publicKey], productId: bench.vendorB.productId })).toEqual({ valid: false, reason: 'wrong_product' });
      expect(verifyManifestSignature({ manifest, signature: signature.slice(1), trustedKeys: [publicKey] })).toEqual({ valid: false, reason: 'malformed_signature' });

      const events = await signEvents();
      expect(events.length).toBe(before + 1);
      expect(events.at(-1)).toMatchObject({ action: 'integrity.sign', summary: { product_id: productA, via: 'token', file_count: 3, manifest_sha256: hexEncode(sha256(manifest)) } });
    });

    it('refuses 403 signer_key_not_registered for an unknown key, another product’s key, and a revoked key', async () => {
      const unknown = await signRequest(bench, manifestFor(productA, hexEncode(randomBytes(32))));
      expect([unknown.status, (await unknown.json()).error.code]).toEqual([403, 'signer_key_not_registered']);

      const productB2 = bench.vendorB.productId;
      const keyOfB = await registerKey(bench, productB2, bench.vendorB.token);
      const foreign = await signRequest(bench, manifestFor(productA, keyOfB.fingerprint));
      expect([foreign.status, (await foreign.json()).error.code]).toEqual([403, 'signer_key_not_registered']);
      const foreignProduct = await signRequest(bench, manifestFor(productB2, keyOfB.fingerprint));
      expect([foreignProduct.status, (await foreignProduct.json()).error.code]).toEqual([404, 'not_found']);

      const { fingerprint } = await registerKey(bench, productA);
      const dryRun = await bench.call('POST', `/integrity/keys/${fingerprint}/revoke`);
      expect(dryRun.status).toBe(200);
      expect(dryRun.body).toMatchObject({ ok: true, dry_run: true, next_status: 'revoked', key: { status: 'registered' } });
      expect((await signRequest(bench, manifestFor(productA, fingerprint))).status).toBe(200);

      const noKey = await bench.call('POST', `/integrity/keys/${fingerprint}/revoke`, { query: { dry_run: 'false' } });
      expect(noKey.status).toBe(400);
      const revokeKey = freshKey();
      const revoked = await bench.call('POST', `/integrity/keys/${fingerprint}/revoke`, { query: { dry_run: 'false' }, key: revokeKey, body: { reason: 'leaked CI runner' } });
      expect(revoked.status).toBe(200);
      expect(revoked.body.key).toMatchObject({ status: 'revoked' });
      const replayed = await bench.call('POST', `/integrity/keys/${fingerprint}/revoke`, { query: { dry_run: 'false' }, key: revokeKey, body: { reason: 'leaked CI runner' } });
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      const again = await bench.call('POST', `/integrity/keys/${fingerprint}/revoke`, { query: { dry_run: 'false' }, key: freshKey() });
      expect([again.status, again.body.error.code]).toEqual([409, 'already_revoked']);
      const refused = await signRequest(bench, manifestFor(productA, fingerprint));
      expect([refused.status, (await refused.json()).error.code]).toEqual([403, 'signer_key_not_registered']);
      const listed = await bench.call('GET', '/integrity/keys', { query: { product_id: productA, status: 'revoked' } });
      expect(listed.body.keys.map((k: { fingerprint: string }) => k.fingerprint)).toEqual([fingerprint]);
      expect((await auditActions()).filter((event) => event.action === 'integrity_key.revoke')).toHaveLength(1);

      const foreignRevoke = await bench.call('POST', `/integrity/keys/${fingerprint}/revoke`, { token: bench.vendorB.token });
      expect([foreignRevoke.status, foreignRevoke.body.error.code]).toEqual([404, 'not_found']);
      const malformed = await bench.call('POST', '/integrity/keys/XYZ/revoke');
      expect(malformed.status).toBe(404);
    });

    it('refuses malformed CBOR and wrong shapes with 400, a body over 256 KiB with 413, JSON with 415', async () => {
      const { fingerprint } = await registerKey(bench, productA);
      const cases: [string, Uint8Array][] = [
        ['truncated CBOR', manifestFor(productA, fingerprint).slice(0, 40)],
        ['not CBOR', new Uint8Array([0xff, 0x00, 0x13])],
        ['trailing bytes', new Uint8Array([...manifestFor(productA, fingerprint), 0x00])],
        ['a CBOR list', encodeCanonical([1, 2, 3])],
        ['an unknown key', encodeCanonical(new Map<string, unknown>([['v', 1], ['x', 1]]) as never)],
        ['path traversal', encodeCanonical(new Map<string, unknown>([['v', 1], ['product_id', productA], ['signer_key', hexDecode(fingerprint)], ['app_version', '1'], ['files', [new Map<string, unknown>([['path', '../etc/passwd'], ['sha256', new Uint8Array(32)], ['size', 1]])]]]) as never)],
      ];
      for (const [what, body] of cases) {
        const response = await signRequest(bench, body);
        const answer = await response.json();
        expect([response.status, answer.ok, answer.error.code], what).toEqual([400, false, 'invalid_request']);
        expect(answer.error.message, what).toMatch(/manifest/);
      }
      const oversized = await signRequest(bench, new Uint8Array(256 * 1024 + 1));
      expect([oversized.status, (await oversized.json()).error.code]).toEqual([413, 'payload_too_large']);
      const manyFiles = manifestFor(productA, fingerprint, { files: 3000 });
      expect(manyFiles.length).toBeLessThanOrEqual(256 * 1024);
      expect((await signRequest(bench, manyFiles)).status).toBe(200);
      const json = await signRequest(bench, '{}', { contentType: 'application/json' });
      expect([json.status, (await json.json()).error.code]).toEqual([415, 'unsupported_media_type']);
    });

    it('checks tokens exactly like every Admin route: none → 401, lacking sign:manifest → 403', async () => {
      const { fingerprint } = await registerKey(bench, productA);
      const manifest = manifestFor(productA, fingerprint);
      const anonymous = await signRequest(bench, manifest, { credential: null });
      expect(anonymous.status).toBe(401);
      const garbage = await signRequest(bench, manifest, { credential: 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln' });
      expect([garbage.status, (await garbage.json()).error.code]).toEqual([401, 'invalid_token']);
      const lacking = await signRequest(bench, manifest, { credential: await bench.tokenWith(bench.vendorA, ['releases:rw']) });
      expect([lacking.status, (await lacking.json()).error.code]).toEqual([403, 'insufficient_scope']);
      const scoped = await signRequest(bench, manifest, { credential: await bench.tokenWith(bench.vendorA, ['sign:manifest']) });
      expect(scoped.status).toBe(200);
    });
  });
}
