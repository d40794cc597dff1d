/**
 * Seeded fuzz of the integrity routes: mutated and random CBOR manifests, mutated CI tokens, random JSON
 * bodies, queries and path ids. Whatever arrives, the answer is never a 5xx and always the JSON envelope
 * (or, for a 200 signature, 64 raw bytes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode } from '@tollgate/core';
import { encodeCanonical, type CborValue } from '@tollgate/core/cbor';
import { mutateBytes, randomCbor, seededRandom } from '@tollgate/core/testing';
import { freshKey, type AdminHarness } from '../admin/admin-harness';
import { serverEngines } from '../helpers';
import { ciClaims, manifestFor, mintJwt, openOidcBench, registerKey, signRequest, type JwksServer, type RsaSigner } from './integrity-fixtures';

const textDecoder = new TextDecoder();

for (const engine of serverEngines) {
  describe(`Integrity routes under seeded fuzz [${engine.name}]`, () => {
    let bench: AdminHarness;
    let jwks: JwksServer;
    let ci: RsaSigner;
    let fingerprint: string;
    let manifest: Uint8Array;

    beforeAll(async () => {
      ({ bench, jwks, ci } = await openOidcBench(engine, 'acme/editor@refs/heads/main=' + 'ab'.repeat(16)));
      fingerprint = (await registerKey(bench, bench.vendorA.productId)).fingerprint;
      manifest = manifestFor(bench.vendorA.productId, fingerprint);
    }, 60_000);
    afterAll(async () => {
      await bench?.close();
      await jwks?.close();
    });

    /** A 200 is a raw signature; everything else is the error envelope. */
    async function expectSane(response: Response, what: string): Promise<void> {
      expect(response.status, what).toBeLessThan(500);
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (response.status === 200 && response.headers.get('content-type') === 'application/octet-stream') {
        expect(bytes.length, what).toBe(64);
        return;
      }
      const body = JSON.parse(textDecoder.decode(bytes));
      expect(body.ok, what).toBe(response.status < 300);
    }

    it('never answers a mutated or random manifest with a 5xx', async () => {
      const random = seededRandom(0x1e9);
      const options = {
        ints: [0, 1, 2, 23, 24, 255, 65_536],
        byteLengths: [0, 1, 16, 32, 33],
        texts: ['', 'v', 'product_id', 'signer_key', 'app_version', 'files', 'build', 'path', 'sha256', 'size', '../x', bench.vendorA.productId],
        longTextMax: 300,
        simples: [true, false, null],
        arrayLength: 6,
        mapSize: 7,
        textKeyOdds: 2,
        textKeys: ['v', 'product_id', 'signer_key', 'app_version', 'files', 'build', 'path', 'sha256', 'size'],
        intKey: (r: typeof random) => r.int(8),
      };
      for (let round = 0; round < 120; round += 1) {
        const body = round % 3 === 2 ? encodeCanonical(randomCbor(random, options) as CborValue) : mutateBytes(random, manifest);
        await expectSane(await signRequest(bench, body), `round ${round}`);
      }
      // A structurally valid manifest naming a random key of the right product, with random files.
      for (let round = 0; round < 20; round += 1) {
        const body = manifestFor(bench.vendorA.productId, round % 2 === 0 ? fingerprint : Buffer.from(random.bytes(32)).toString('hex'), { files: 1 + random.int(50) });
        await expectSane(await signRequest(bench, body), `valid-shaped ${round}`);
      }
    }, 180_000);

    it('never answers a mutated CI token with a 5xx', async () => {
      const random = seededRandom(0x0dc);
      const token = mintJwt(ciClaims(), { rs256: ci });
      const bytes = new TextEncoder().encode(token);
      for (let round = 0; round < 80; round += 1) {
        const mutated = textDecoder.decode(mutateBytes(random, bytes)).replace(/[^\x21-\x7e]/g, 'A');
        await expectSane(await signRequest(bench, manifest, { credential: mutated }), `token round ${round}`);
      }
      await expectSane(await signRequest(bench, manifest, { credential: `${'a'.repeat(5000)}.${'b'.repeat(9000)}.c` }), 'oversized token');
    }, 120_000);

    it('never answers random JSON, queries or path ids of the key routes with a 5xx', async () => {
      const random = seededRandom(0x7e5);
      const values: unknown[] = [null, true, 0, -1, 1e308, '', 'x'.repeat(300), '\u0000', [], {}, bench.vendorA.productId, 'ab'.repeat(16), fingerprint];
      const pick = () => values[random.int(values.length)];
      for (let round = 0; round < 40; round += 1) {
        const body: Record<string, unknown> = {};
        for (const name of ['product_id', 'label', 'reason', 'status', 'x']) if (random.int(2) === 0) body[name] = pick();
        const registered = await bench.call('POST', '/integrity/keys', { body, key: freshKey() });
        expect(registered.status, JSON.stringify(body)).toBeLessThan(500);
        const query: Record<string, string> = {};
        for (const name of ['product_id', 'status', 'limit', 'cursor']) if (random.int(2) === 0) query[name] = String(pick());
        const listed = await bench.call('GET', '/integrity/keys', { query });
        expect(listed.status, JSON.stringify(query)).toBeLessThan(500);
        const target = random.int(3) === 0 ? fingerprint : Buffer.from(random.bytes(random.int(40))).toString(random.int(2) === 0 ? 'hex' : 'base64url') || 'x';
        const revoked = await bench.call('POST', `/integrity/keys/${target}/revoke`, { body, query: { dry_run: random.int(2) === 0 ? 'true' : 'maybe' } });
        expect(revoked.status, target).toBeLessThan(500);
        expect(revoked.body.ok).toBe(revoked.status < 300);
      }
      expect(hexDecode(fingerprint)).toHaveLength(32);
    }, 180_000);
  });
}
