/**
 * Release warnings in validation tickets, with releases registered, deprecated and marked compromised
 * through the Admin API: release_status, refresh_now for force_upgrade, the product's security floor,
 * a kill order of reason 7 for a release compromised with `revoke`, and 1007 for a build the registry
 * does not know. Its own server: registering a release gates every build of the product.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hexDecode } from '@tollgate/core';
import { randomBytes } from '@tollgate/core/crypto';
import type { ClientInfo } from '@tollgate/core/license';
import { freshKey } from '../admin/admin-harness';
import { issueLicenses, seedPolicy } from '../admin/admin-license-fixtures';
import { registerRelease, releaseBody } from '../admin/admin-releases-fixtures';
import { defaultClientInfo, newDevice, openClientBench, type ClientBench, type Device, type Seat } from './client-harness';
import { errorOf, killOrderOf, ticketOf } from './client-session-helpers';
import { serverEngines } from '../helpers';

const confirm = { dry_run: 'false' };

for (const engine of serverEngines) {
  describe(`POST /v1/validate: release warnings [${engine.name}]`, () => {
    let bench: ClientBench;
    let licenseKey: string;
    beforeAll(async () => {
      bench = await openClientBench(engine);
      const policyId = await seedPolicy(bench.admin, bench.admin.vendorA, {
        seats: 100,
      });
      licenseKey = ((await issueLicenses(bench.admin, policyId))[0] as { key: string }).key;
    }, 120_000);
    afterAll(() => bench?.close());

    /** Registers a build and activates a device that runs it. */
    async function deviceOnRelease(fields: Record<string, unknown> = {}): Promise<{
      device: Device;
      seat: Seat;
      clientInfo: ClientInfo;
      releaseId: string;
    }> {
      const release = (await registerRelease(bench.admin, releaseBody(bench.admin.vendorA, { app_version: '1.4.0', ...fields }))).body.release;
      const clientInfo: ClientInfo = {
        ...defaultClientInfo,
        appVersion: '1.4.0',
        buildFingerprint: hexDecode(release.build_fingerprint as string),
      };
      const device = newDevice();
      const answer = await bench.activate(device, { licenseKey }, { clientInfo });
      expect(answer.status).toBe(200);
      const credential = await bench.verify(answer.bytes, 'machine-credential');
      return {
        device,
        seat: {
          licenseId: credential.licenseId,
          machineId: credential.machineId,
        },
        clientInfo,
        releaseId: release.release_id as string,
      };
    }
    const validate = (running: { device: Device; seat: Seat; clientInfo: ClientInfo }, nonce = randomBytes(32)) =>
      bench.validate(running.device, running.seat, {
        clientInfo: running.clientInfo,
        nonce,
      });
    const floor = async () =>
      Number(
        (await bench.admin.sql.query<{ security_floor: number }>('SELECT security_floor FROM license_products WHERE product_id = $1', [bench.productId])).rows[0]?.security_floor ??
          0
      );
    const markCompromised = async (releaseId: string, body: Record<string, unknown>) => {
      const answer = await bench.admin.call('POST', `/releases/${releaseId}/mark-compromised`, { query: confirm, key: freshKey(), body });
      expect(answer.status, answer.text).toBe(200);
    };

    it('reports a registered release as active, with the product floor and no refresh_now, and records the release on the machine', async () => {
      const running = await deviceOnRelease();
      const ticket = await ticketOf(bench, await validate(running));
      expect(ticket).toMatchObject({
        verdict: 0,
        releaseStatus: 0,
        securityFloor: await floor(),
      });
      expect(ticket.refreshNow).toBeUndefined();
      const { rows } = await bench.admin.sql.query<{ release_id: string }>('SELECT release_id FROM license_machines WHERE machine_id = $1', [
        Buffer.from(running.seat.machineId).toString('hex'),
      ]);
      expect(rows[0]?.release_id).toBe(running.releaseId);
    });

    it('warns of a deprecated release (release_status 1) and keeps issuing tickets', async () => {
      const running = await deviceOnRelease();
      const answer = await bench.admin.call('POST', `/releases/${running.releaseId}/deprecate`, { query: confirm, key: freshKey() });
      expect(answer.status).toBe(200);
      const ticket = await ticketOf(bench, await validate(running));
      expect(ticket).toMatchObject({ verdict: 0, releaseStatus: 1 });
      expect(ticket.refreshNow).toBeUndefined();
    });

    it('warns of a compromise with warn (release_status 2), and a raised security floor reaches the tickets of every release', async () => {
      const running = await deviceOnRelease();
      const bystander = await deviceOnRelease();
      const before = await floor();
      await markCompromised(running.releaseId, {
        action: 'warn',
        bump_security_floor: true,
      });
      expect(await floor()).toBe(before + 1);
      const ticket = await ticketOf(bench, await validate(running));
      expect(ticket).toMatchObject({
        verdict: 0,
        releaseStatus: 2,
        securityFloor: before + 1,
      });
      expect(ticket.refreshNow).toBeUndefined();
      expect(await ticketOf(bench, await validate(bystander))).toMatchObject({
        releaseStatus: 0,
        securityFloor: before + 1,
      });
      // A device that already saw this floor is in step with the server.
      expect(
        (
          await ticketOf(
            bench,
            await bench.validate(bystander.device, bystander.seat, {
              clientInfo: bystander.clientInfo,
              knownSecurityFloor: before + 1,
            })
          )
        ).verdict
      ).toBe(0);
    });

    it('asks for an upgrade with refresh_now after a force_upgrade compromise', async () => {
      const running = await deviceOnRelease();
      await markCompromised(running.releaseId, { action: 'force_upgrade' });
      const ticket = await ticketOf(bench, await validate(running));
      expect(ticket).toMatchObject({ releaseStatus: 2, refreshNow: true });
    });

    it('answers a kill order of reason 7 at status 200 after a revoke compromise, while other releases keep their tickets', async () => {
      const running = await deviceOnRelease();
      const bystander = await deviceOnRelease();
      await markCompromised(running.releaseId, {
        action: 'revoke',
        acknowledge_revoke: true,
      });
      const nonce = randomBytes(32);
      const answer = await validate(running, nonce);
      expect(answer.status).toBe(200);
      const order = await killOrderOf(bench, answer);
      expect(order).toMatchObject({
        reason: 7,
        nonceEcho: nonce,
        machineId: running.seat.machineId,
      });
      expect(order.userMessage).toMatch(/release/);
      expect((await ticketOf(bench, await validate(bystander))).verdict).toBe(0);
      // The device may move to a good build: the same seat validates again with it.
      expect((await ticketOf(bench, await validate({ ...running, clientInfo: bystander.clientInfo }))).verdict).toBe(0);
    });

    it('refuses a build the registry does not know with 1007 (403)', async () => {
      const running = await deviceOnRelease();
      const answer = await validate({
        ...running,
        clientInfo: {
          ...running.clientInfo,
          buildFingerprint: randomBytes(32),
        },
      });
      expect([answer.status, errorOf(answer).code]).toEqual([403, 1007]);
      expect(errorOf(answer).message).toMatch(/POST \/v1\/admin\/releases/);
    });
  });
}
