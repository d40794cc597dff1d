/**
 * `POST /v1/validate` over real HTTP: the signed ValidationTicket (verified against the keyset with the
 * feed's revoked epochs), its timing, entitlements and verdicts; proofs and nonces; refusals of a license
 * that is not usable; a device reporting a later revocation epoch than the server's. The telemetry block
 * is in client-validate-telemetry.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import { hexOf, seedCatalog } from '../admin/admin-license-fixtures';
import { newDevice, openClientBench, postCbor, validateBody, type ClientBench } from './client-harness';
import { adminPatchLicense, errorOf, licensedDevice, machineRow, ticketOf } from './client-session-helpers';
import { serverEngines } from '../helpers';

const nowSeconds = () => Math.floor(Date.now() / 1000);

for (const engine of serverEngines) {
  describe(`POST /v1/validate: tickets [${engine.name}]`, () => {
    let bench: ClientBench;
    beforeAll(async () => {
      bench = await openClientBench(engine);
      await seedCatalog(bench.admin, bench.admin.vendorA, [
        { kind: 'feature', id: 'edit' },
        { kind: 'feature', id: 'sync' },
        { kind: 'feature', id: 'export.pdf' },
        { kind: 'tier', id: 'pro', features: ['edit', 'sync'] },
      ]);
    }, 120_000);
    afterAll(() => bench?.close());

    it('answers a signed ticket bound to the request: ids, nonce echo, server time, refresh schedule, fresh server nonce', async () => {
      const licensed = await licensedDevice(bench, {
        validation_interval_seconds: 3600,
        validation_grace_seconds: 7200,
      });
      const nonce = randomBytes(32);
      const before = nowSeconds();
      const answer = await bench.validate(licensed.device, licensed.seat, {
        nonce,
      });
      const after = nowSeconds();
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const ticket = await ticketOf(bench, answer);
      expect(ticket).toMatchObject({
        protoVersion: 1,
        licenseId: licensed.seat.licenseId,
        machineId: licensed.seat.machineId,
        nonceEcho: nonce,
        verdict: 0,
        securityFloor: 0,
      });
      expect(ticket.serverTime).toBeGreaterThanOrEqual(before);
      expect(ticket.serverTime).toBeLessThanOrEqual(after);
      // Short-lived: the device must come back after the policy's interval and may run at most the grace beyond it.
      expect(ticket.refreshAfter).toBe(ticket.serverTime + 3600);
      expect(ticket.graceSeconds).toBe(7200);
      expect(ticket.expiresAt).toBeUndefined();
      expect(ticket.releaseStatus).toBeUndefined();
      expect(ticket.refreshNow).toBeUndefined();
      expect(ticket.serverNonce).toHaveLength(32);
      const second = await ticketOf(bench, await bench.validate(licensed.device, licensed.seat));
      expect(hexOf(second.serverNonce)).not.toBe(hexOf(ticket.serverNonce));
      const row = await machineRow(bench, licensed.machineId);
      expect(row.last_validated_at).not.toBeNull();
      expect(row.last_seen_at.getTime()).toBe(row.last_validated_at?.getTime());
    });

    it('carries the entitlement snapshot of the license: policy tier plus overrides, as the catalog resolves it', async () => {
      const licensed = await licensedDevice(bench, { tier: 'pro' });
      await adminPatchLicense(bench, licensed.licenseId, {
        entitlement_overrides: { add: ['export.pdf'], remove: ['sync'] },
      });
      const ticket = await ticketOf(bench, await bench.validate(licensed.device, licensed.seat));
      const resolved = await bench.admin.call('POST', '/catalog/resolve', {
        body: {
          product_id: bench.productId,
          tier: 'pro',
          overrides: { add: ['export.pdf'], remove: ['sync'] },
        },
      });
      expect(resolved.status).toBe(200);
      expect(ticket.entitlements?.features).toEqual(['edit', 'export.pdf']);
      expect(ticket.entitlements?.features).toEqual(resolved.body.snapshot.features);
      expect(ticket.entitlements?.tier).toBe('pro');
      const digest = hexDecode(resolved.body.snapshot.digest as string);
      expect(ticket.entitlements?.catalogVersion).toBe(digest.slice(0, 6).reduce((value, byte) => value * 256 + byte, 0));
      // A change of the license shows on the next ticket.
      await adminPatchLicense(bench, licensed.licenseId, {
        entitlement_overrides: { add: [], remove: [] },
      });
      expect((await ticketOf(bench, await bench.validate(licensed.device, licensed.seat))).entitlements?.features).toEqual(['edit', 'sync']);
    });

    it('carries the expiry of an expiring license and refuses it once expired (1000, 403)', async () => {
      const expiry = new Date((nowSeconds() + 86_400) * 1000);
      const licensed = await licensedDevice(bench, { validation_interval_seconds: 604_800 }, { expires_at: expiry.toISOString() });
      const ticket = await ticketOf(bench, await bench.validate(licensed.device, licensed.seat));
      expect(ticket.expiresAt).toBe(expiry.getTime() / 1000);
      await adminPatchLicense(bench, licensed.licenseId, {
        expires_at: new Date(Date.now() - 1000).toISOString(),
      });
      const refused = await bench.validate(licensed.device, licensed.seat);
      expect(refused.status).toBe(403);
      expect(errorOf(refused).code).toBe(1000);
    });

    it('refuses a suspended license with 1000 (403), and issues tickets again once it is active', async () => {
      const licensed = await licensedDevice(bench);
      await adminPatchLicense(bench, licensed.licenseId, {
        status: 'suspended',
      });
      const refused = await bench.validate(licensed.device, licensed.seat);
      expect([refused.status, errorOf(refused).code]).toEqual([403, 1000]);
      await adminPatchLicense(bench, licensed.licenseId, { status: 'active' });
      expect((await ticketOf(bench, await bench.validate(licensed.device, licensed.seat))).verdict).toBe(0);
    });

    it('answers verdict 1 (needs reactivation) to another fingerprint and 2 (restricted) outside the version scope', async () => {
      const licensed = await licensedDevice(bench);
      expect(
        (
          await ticketOf(
            bench,
            await bench.validate(licensed.device, licensed.seat, {
              fingerprint: randomBytes(32),
            })
          )
        ).verdict
      ).toBe(1);
      await adminPatchLicense(bench, licensed.licenseId, {
        version_scope_override: { min: '2.0.0' },
      });
      expect((await ticketOf(bench, await bench.validate(licensed.device, licensed.seat))).verdict).toBe(2);
    });

    it('refuses a forged proof with 1000 (401) without spending the nonce; the same nonce then works once, and its replay is refused', async () => {
      const licensed = await licensedDevice(bench);
      const nonce = randomBytes(32);
      const before = await machineRow(bench, licensed.machineId);
      const forged = await bench.validate(licensed.device, licensed.seat, {
        nonce,
        signer: newDevice().signer,
      });
      expect([forged.status, errorOf(forged).code]).toEqual([401, 1000]);
      expect((await machineRow(bench, licensed.machineId)).last_seen_at).toEqual(before.last_seen_at);
      const good = await ticketOf(bench, await bench.validate(licensed.device, licensed.seat, { nonce }));
      expect(good.nonceEcho).toEqual(nonce);
      const replay = await bench.validate(licensed.device, licensed.seat, {
        nonce,
      });
      expect([replay.status, errorOf(replay).code]).toEqual([401, 1000]);
      // The refusals say nothing about which check failed.
      expect(errorOf(replay).message).toBe(errorOf(forged).message);
    });

    it('refuses a machine of another license, an unknown machine and another product with the same generic 1000 (401)', async () => {
      const one = await licensedDevice(bench);
      const two = await licensedDevice(bench);
      for (const seat of [
        { licenseId: two.seat.licenseId, machineId: one.seat.machineId },
        { licenseId: one.seat.licenseId, machineId: randomBytes(16) },
      ]) {
        const answer = await bench.validate(one.device, seat);
        expect([answer.status, errorOf(answer).code]).toEqual([401, 1000]);
      }
      const otherProduct = await postCbor(bench.url, '/v1/validate', await validateBody(one.device, one.seat, bench.admin.vendorB.productId));
      expect([otherProduct.status, errorOf(otherProduct).code]).toEqual([401, 1000]);
    });

    it('answers a device that saw a later revocation epoch or floor than the server with the server’s own values, and logs it for operators', async () => {
      const licensed = await licensedDevice(bench);
      const logged = bench.admin.server.context.logger;
      const warnings: unknown[] = [];
      const original = logged.warn.bind(logged);
      logged.warn = ((...args: unknown[]) => {
        warnings.push(args[0]);
        return original(...(args as Parameters<typeof original>));
      }) as typeof logged.warn;
      try {
        const ticket = await ticketOf(
          bench,
          await bench.validate(licensed.device, licensed.seat, {
            knownRevocationEpoch: 1_000_000,
            knownSecurityFloor: 77,
          })
        );
        expect(ticket).toMatchObject({ verdict: 0, securityFloor: 0 });
        expect(ticket.revocationEpoch).toBeLessThan(1_000_000);
      } finally {
        logged.warn = original;
      }
      expect(warnings).toContainEqual(
        expect.objectContaining({
          machineId: licensed.machineId,
          knownRevocationEpoch: 1_000_000,
          knownSecurityFloor: 77,
        })
      );
    });
  });
}
