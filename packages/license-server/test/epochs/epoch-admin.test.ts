/**
 * Epoch administration over HTTP: list, upload (primary and carry-over certificates, refusals), detail
 * with replacement readiness, the keyset republished after an upload, scopes and vendor isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexEncode } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import { decodeKeyset, encodeKeyset, rootKeyIdHex, verifyKeyset } from '@tollgate/core/license';
import { loadEpochCertificate } from '../../src/ceremony/ceremony';
import { freshKey } from '../admin/admin-harness';
import { bodyBytes, protoHeaders, serverEngines } from '../helpers';
import { eventually, openEpochBench, rootPublicHex, signRequest, type EpochBench } from './epoch-bench';

async function servedKeyset(bench: EpochBench) {
  const response = await fetch(`${bench.url}/v1/keys`, { headers: protoHeaders });
  return decodeKeyset(await bodyBytes(response));
}

for (const engine of serverEngines) {
  describe(`Admin epochs [${engine.name}]`, () => {
    let bench: EpochBench;
    beforeAll(async () => {
      bench = await openEpochBench(engine);
    }, 60_000);
    afterAll(() => bench?.close());

    it('lists the dev epoch with its root, keyset listing and certificate request', async () => {
      const answer = await bench.call('GET', '/epochs');
      expect(answer.status).toBe(200);
      expect(answer.body.administers_global_epochs).toBe(true);
      const [dev] = answer.body.epochs;
      expect(dev).toMatchObject({ status: 'active', product_scope: null, valid_now: true, listed_in_keyset: true, key_wiped: false });
      expect(dev.certified_by).toEqual([{ root_key_id: rootKeyIdHex(bench.server.context.pinnedRoots[0] as Uint8Array), carried_over: false }]);
      expect(dev.epoch_id).toMatch(/^[0-9a-f]{16}$/);
      expect(dev.certificate_request_hex).toMatch(/^[0-9a-f]+$/);
    });

    it('loads a root-signed certificate, republishes the keyset, and treats the same upload again as a no-op', async () => {
      const { epochIdHex, request } = await bench.pendingEpoch();
      const pending = await bench.call('GET', `/epochs/${epochIdHex}`);
      expect(pending.body.epoch).toMatchObject({ status: 'pending', listed_in_keyset: false });
      expect(pending.body.epoch.certificate_request_hex).toBe(hexEncode(request));
      const body = { certificate_hex: await signRequest(request, bench.devRootSeed), root_verifying_key_hex: rootPublicHex(bench.devRootSeed) };
      const loaded = await bench.call('POST', '/epochs', { key: freshKey(), body });
      expect(loaded.status).toBe(200);
      expect(loaded.body).toMatchObject({ ok: true, outcome: 'activated', epoch: { epoch_id: epochIdHex, status: 'active', listed_in_keyset: true } });
      // Every instance serves it without waiting for the periodic refresh.
      const keyset = await eventually(
        () => servedKeyset(bench),
        (served) => served.certificates.some((certificate) => hexEncode(certificate) === body.certificate_hex),
      );
      const verified = verifyKeyset(encodeKeyset(keyset), bench.server.context.pinnedRoots, Math.floor(Date.now() / 1000));
      expect(verified.epochs.has(epochIdHex)).toBe(true);
      const again = await bench.call('POST', '/epochs', { key: freshKey(), body });
      expect(again.body.outcome).toBe('already_active');
      const audit = await bench.call('GET', '/audit', { query: { target_type: 'epoch', target_id: epochIdHex } });
      expect(audit.body.events.map((event: { action: string }) => event.action)).toEqual(['epoch.certificate_load', 'epoch.certificate_load']);
    });

    it('refuses certificates of unpinned roots, tampered certificates, unknown epochs and malformed bodies', async () => {
      const { request } = await bench.pendingEpoch();
      const stranger = randomBytes(32);
      const unpinned = await bench.call('POST', '/epochs', { key: freshKey(), body: { certificate_hex: await signRequest(request, stranger), root_verifying_key_hex: rootPublicHex(stranger) } });
      expect(unpinned.status).toBe(400);
      expect(unpinned.body.error).toMatchObject({ code: 'invalid_request' });
      expect(unpinned.body.error.message).toMatch(/not pinned/);
      // Signed by a stranger but presented as the pinned root's.
      const forged = await bench.call('POST', '/epochs', { key: freshKey(), body: { certificate_hex: await signRequest(request, stranger), root_verifying_key_hex: rootPublicHex(bench.devRootSeed) } });
      expect(forged.status).toBe(400);
      expect(forged.body.error.message).toMatch(/does not verify/);
      const good = await signRequest(request, bench.devRootSeed);
      const flipped = good.slice(0, -2) + (good.endsWith('00') ? '01' : '00');
      const tampered = await bench.call('POST', '/epochs', { key: freshKey(), body: { certificate_hex: flipped, root_verifying_key_hex: rootPublicHex(bench.devRootSeed) } });
      expect(tampered.status).toBe(400);
      // A certificate for an epoch this server never generated.
      const other = await openForeignRequest(bench);
      const unknown = await bench.call('POST', '/epochs', { key: freshKey(), body: { certificate_hex: await signRequest(other, bench.devRootSeed), root_verifying_key_hex: rootPublicHex(bench.devRootSeed) } });
      expect(unknown.status).toBe(404);
      for (const body of [{}, { certificate_hex: 'zz', root_verifying_key_hex: rootPublicHex(bench.devRootSeed) }, { certificate_hex: good, root_verifying_key_hex: 'ab' }, { certificate_hex: good, root_verifying_key_hex: rootPublicHex(bench.devRootSeed), extra: 1 }]) {
        const answer = await bench.call('POST', '/epochs', { key: freshKey(), body });
        expect(answer.status, JSON.stringify(body)).toBe(400);
      }
    });

    it('stores a carry-over certificate loaded by the CLI path, and keeps listing the epoch under a pinned root', async () => {
      const nextRoot = randomBytes(32);
      const epochIdHex = await bench.activeEpoch();
      const detail = await bench.call('GET', `/epochs/${epochIdHex}`);
      const certificate = Buffer.from(await signRequest(Buffer.from(detail.body.epoch.certificate_request_hex, 'hex'), nextRoot), 'hex');
      const pins = [...bench.server.context.pinnedRoots, Buffer.from(rootPublicHex(nextRoot), 'hex')];
      const loaded = await loadEpochCertificate(bench.sql, { certificate, pinnedRoots: pins });
      expect(loaded.epochIdHex).toBe(epochIdHex);
      const certified = (await bench.call('GET', `/epochs/${epochIdHex}`)).body.epoch.certified_by;
      expect(certified).toHaveLength(2);
      expect(certified[1]).toEqual({ root_key_id: rootKeyIdHex(Buffer.from(rootPublicHex(nextRoot), 'hex')), carried_over: true });
      // This server does not pin the next root: it keeps listing the epoch under its primary certificate.
      await bench.server.context.trust.refresh();
      const keyset = verifyKeyset(bench.server.context.trust.keyset()?.bytes as Uint8Array, bench.server.context.pinnedRoots, Math.floor(Date.now() / 1000));
      expect(keyset.epochs.has(epochIdHex)).toBe(true);
      expect(bench.server.context.trust.keyset()?.skipped).toEqual([]);
      // A certificate of the same epoch by an unpinned root is refused by both paths.
      const stranger = randomBytes(32);
      const strange = Buffer.from(await signRequest(Buffer.from(detail.body.epoch.certificate_request_hex, 'hex'), stranger), 'hex');
      await expect(loadEpochCertificate(bench.sql, { certificate: strange, pinnedRoots: bench.server.context.pinnedRoots })).rejects.toMatchObject({ reason: 'unpinned_root' });
    });

    it('answers malformed and unknown epoch ids as not found', async () => {
      for (const id of ['00', 'ABCDEFABCDEFABCD', '0123456789abcdef0', hexEncode(randomBytes(8))]) {
        expect((await bench.call('GET', `/epochs/${id}`)).status, id).toBe(404);
        expect((await bench.call('POST', `/epochs/${id}/revoke`)).status, id).toBe(404);
      }
    });

    it('reports replacement readiness in the detail', async () => {
      const scoped = await bench.activeEpoch({ productScope: bench.vendorA.productId });
      const detail = await bench.call('GET', `/epochs/${scoped}`);
      expect(detail.status).toBe(200);
      // Global epochs take over what a product's epoch signs.
      expect(detail.body.replacement.ready).toBe(true);
      expect(detail.body.replacement.epoch_ids.length).toBeGreaterThan(0);
      expect(detail.body.replacement.epoch_ids).not.toContain(scoped);
      expect(detail.body.revocation_approval).toBeNull();
      expect(detail.body.epoch.certificates_hex).toHaveLength(1);
    });

    it('needs epochs:rw, and revoke as well for revocation', async () => {
      const [dev] = (await bench.call('GET', '/epochs')).body.epochs;
      const noScope = await bench.tokenWith(bench.vendorA, ['licenses:rw', 'revoke']);
      for (const [method, path] of [['GET', '/epochs'], ['POST', '/epochs'], ['GET', `/epochs/${dev.epoch_id}`], ['POST', `/epochs/${dev.epoch_id}/revoke`]] as const) {
        const answer = await bench.call(method, path, { token: noScope, key: freshKey(), ...(method === 'POST' ? { body: {} } : {}) });
        expect(answer.status, path).toBe(403);
        expect(answer.body.error.code).toBe('insufficient_scope');
      }
      const epochsOnly = await bench.tokenWith(bench.vendorA, ['epochs:rw']);
      const refused = await bench.call('POST', `/epochs/${dev.epoch_id}/revoke`, { token: epochsOnly });
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(/revoke/);
      expect((await bench.call('GET', `/epochs/${dev.epoch_id}`, { token: epochsOnly })).status).toBe(200);
      expect((await bench.call('GET', '/epochs', { token: null })).status).toBe(401);
    });

    it('revokes a product epoch with two tokens, voiding an approval whose token was revoked meanwhile', async () => {
      const scoped = await bench.activeEpoch({ productScope: bench.vendorA.productId });
      const [first, second, third] = await Promise.all([0, 1, 2].map(() => bench.tokenWith(bench.vendorA, ['epochs:rw', 'revoke'])));
      const confirm = (token: string) =>
        bench.call('POST', `/epochs/${scoped}/revoke`, { token, query: { dry_run: 'false' }, key: freshKey(), body: { confirm_epoch_id: scoped } });
      const opened = await confirm(first as string);
      expect(opened.status).toBe(202);
      await bench.sql.query('UPDATE license_admin_tokens SET revoked_at = now() WHERE token_id = $1', [opened.body.approval.requested_by]);
      const reopened = await confirm(second as string);
      expect(reopened.status).toBe(202);
      expect(reopened.body.approval.approval_id).not.toBe(opened.body.approval.approval_id);
      const executed = await confirm(third as string);
      expect(executed.status).toBe(200);
      expect(executed.body).toMatchObject({ revoked: true, epoch_id: scoped });
      // The global epochs took over: the product keeps a signer.
      expect(executed.body.replacement_epoch_ids.length).toBeGreaterThan(0);
      const keyset = await eventually(
        () => servedKeyset(bench),
        (served) => served.revocationEpoch === executed.body.revocation.seq,
      );
      expect(keyset.revocationEpoch).toBe(executed.body.revocation.seq);
      expect(bench.server.context.trust.signingEpochs().some(({ epoch }) => epoch.epochIdHex === scoped)).toBe(false);
    });

    it.skipIf(engine.name === 'pglite')('republishes the keyset on every instance after an upload [postgres]', async () => {
      const other = await bench.sandbox.start({ LICENSE_RATE_LIMIT_PER_ADDRESS: 'off' });
      const epochIdHex = await bench.activeEpoch();
      const served = await eventually(
        async () => decodeKeyset(await bodyBytes(await fetch(`${other.url}/v1/keys`, { headers: protoHeaders }))),
        (keyset) => verifyKeyset(encodeKeyset(keyset), other.context.pinnedRoots, Math.floor(Date.now() / 1000)).epochs.has(epochIdHex),
      );
      expect(verifyKeyset(encodeKeyset(served), other.context.pinnedRoots, Math.floor(Date.now() / 1000)).epochs.has(epochIdHex)).toBe(true);
    });

    it('keeps epochs to their vendor once the server hosts several: global ones need LICENSE_EPOCH_ADMIN_VENDORS', async () => {
      const [dev] = (await bench.call('GET', '/epochs')).body.epochs;
      const scopedA = await bench.activeEpoch({ productScope: bench.vendorA.productId });
      const vendorB = await bench.addVendor('Vendor B');
      const scopedB = await bench.activeEpoch({ productScope: vendorB.productId, token: vendorB.token });
      const listA = await bench.call('GET', '/epochs');
      expect(listA.body.administers_global_epochs).toBe(false);
      const idsA = listA.body.epochs.map((epoch: { epoch_id: string }) => epoch.epoch_id);
      expect(idsA).toContain(scopedA);
      expect(idsA).not.toContain(dev.epoch_id);
      expect(idsA).not.toContain(scopedB);
      for (const [token, id] of [[bench.vendorA.token, scopedB], [vendorB.token, scopedA], [vendorB.token, dev.epoch_id], [bench.vendorA.token, dev.epoch_id]] as const) {
        expect((await bench.call('GET', `/epochs/${id}`, { token })).status).toBe(404);
        expect((await bench.call('POST', `/epochs/${id}/revoke`, { token })).status).toBe(404);
      }
      // Vendor B cannot load a certificate for vendor A's pending epoch.
      const { request } = await bench.pendingEpoch({ productScope: bench.vendorA.productId });
      const stolen = await bench.call('POST', '/epochs', {
        token: vendorB.token,
        key: freshKey(),
        body: { certificate_hex: await signRequest(request, bench.devRootSeed), root_verifying_key_hex: rootPublicHex(bench.devRootSeed) },
      });
      expect(stolen.status).toBe(404);
    });
  });
}

/** A certificate request for an epoch id this server never stored. */
async function openForeignRequest(bench: EpochBench): Promise<Uint8Array> {
  const { request, epochIdHex } = await bench.pendingEpoch();
  await bench.sql.query('DELETE FROM license_epochs WHERE epoch_id = $1', [Buffer.from(epochIdHex, 'hex')]);
  return request;
}
