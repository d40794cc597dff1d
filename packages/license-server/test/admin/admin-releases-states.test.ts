/**
 * Release state routes through HTTP: deprecate and mark-compromised, dry run against confirmation,
 * acknowledgement of revoke, the security floor, idempotent replays and the audit chain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { snapshotTables } from './admin-license-fixtures';
import { registerRelease, releaseAuditActions, releaseBody, seedReleaseMachines } from './admin-releases-fixtures';
import { serverEngines } from '../helpers';

const confirm = { dry_run: 'false' };

for (const engine of serverEngines) {
  describe(`Admin releases: states [${engine.name}]`, () => {
    let bench: AdminHarness;
    const newRelease = async () => (await registerRelease(bench, releaseBody(bench.vendorA))).body.release.release_id as string;
    const floor = async () => (await bench.sql.query<{ security_floor: number }>('SELECT security_floor FROM license_products WHERE product_id = $1', [bench.vendorA.productId])).rows[0]?.security_floor;
    beforeAll(async () => {
      bench = await openAdminHarness(engine);
    });
    afterAll(() => bench?.close());

    it('deprecates: the dry run (the default) reports impacted devices and changes nothing; the confirmation moves the state once', async () => {
      const id = await newRelease();
      const machines = await seedReleaseMachines(bench, bench.vendorA, id, 3);
      // A machine that released its seat is not impacted.
      await bench.sql.query("UPDATE license_machines SET status = 'deactivated', deactivated_at = now() WHERE machine_id = $1", [machines[0]]);
      const before = await snapshotTables(bench);
      const dryRun = await bench.call('POST', `/releases/${id}/deprecate`);
      expect(dryRun.status).toBe(200);
      expect(dryRun.body).toMatchObject({ ok: true, dry_run: true, would_change: true, impacted_devices: 2, warnings: [], release: { release_id: id, state: 'registered' } });
      expect(await snapshotTables(bench)).toBe(before);

      const unconfirmed = await bench.call('POST', `/releases/${id}/deprecate`, { query: confirm });
      expect(unconfirmed.status).toBe(400);
      expect(unconfirmed.body.error.message).toMatch(/Idempotency-Key/);

      const key = freshKey();
      const confirmed = await bench.call('POST', `/releases/${id}/deprecate`, { query: confirm, key, body: {} });
      expect(confirmed.status).toBe(200);
      expect(confirmed.body).toMatchObject({ ok: true, dry_run: false, changed: true, impacted_devices: 2, warnings: [], release: { state: 'deprecated', release_status: 1, deprecated_at: expect.any(String) } });
      const replay = await bench.call('POST', `/releases/${id}/deprecate`, { query: confirm, key, body: {} });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(confirmed.body);

      const again = await bench.call('POST', `/releases/${id}/deprecate`, { query: confirm, key: freshKey() });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ changed: false, warnings: [expect.stringMatching(/^already_deprecated: /)] });
      expect(again.body.release.updated_at).toBe(confirmed.body.release.updated_at);
      expect(await releaseAuditActions(bench, id)).toEqual(['release.register', 'release.deprecate', 'release.deprecate']);
      const { rows } = await bench.sql.query<{ summary: string }>("SELECT summary FROM license_audit_events WHERE target_id = $1 AND action = 'release.deprecate' ORDER BY seq", [id]);
      expect(rows.map((row) => JSON.parse(row.summary))).toEqual([
        { product_id: bench.vendorA.productId, changed: true, state: 'deprecated', impacted_devices: 2 },
        { product_id: bench.vendorA.productId, changed: false, state: 'deprecated', impacted_devices: 2 },
      ]);
      const bodyRefused = await bench.call('POST', `/releases/${id}/deprecate`, { query: confirm, key: freshKey(), body: { reason: 1 } });
      expect(bodyRefused.status).toBe(400);
    });

    it('refuses a revoke without acknowledge_revoke, and the dry run says an acknowledgement is required', async () => {
      const id = await newRelease();
      await seedReleaseMachines(bench, bench.vendorA, id, 2);
      const current = await floor();
      const dryRun = await bench.call('POST', `/releases/${id}/mark-compromised`, { body: { action: 'revoke', bump_security_floor: true } });
      expect(dryRun.status).toBe(200);
      expect(dryRun.body).toMatchObject({ dry_run: true, action: 'revoke', would_change: true, impacted_devices: 2, requires_acknowledgement: true, security_floor: { current, next: (current as number) + 1 } });

      for (const body of [{ action: 'revoke' }, { action: 'revoke', acknowledge_revoke: false }]) {
        const refused = await bench.call('POST', `/releases/${id}/mark-compromised`, { query: confirm, key: freshKey(), body });
        expect(refused.status).toBe(400);
        expect(refused.body.error.code).toBe('invalid_request');
        expect(refused.body.error.message).toMatch(/acknowledge_revoke: true/);
      }
      expect((await bench.call('GET', `/releases/${id}`)).body.release.state).toBe('registered');
      expect(await floor()).toBe(current);
      expect(await releaseAuditActions(bench, id)).toEqual(['release.register']);

      const acknowledged = await bench.call('POST', `/releases/${id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'revoke', acknowledge_revoke: true } });
      expect(acknowledged.status).toBe(200);
      expect(acknowledged.body).toMatchObject({ changed: true, impacted_devices: 2, release: { state: 'compromised', compromise_action: 'revoke', release_status: 2 }, security_floor: { previous: current, current } });
    });

    it('escalates a compromise, never lowers it, and raises the floor once per change that asks for it', async () => {
      const id = await newRelease();
      const start = (await floor()) as number;
      const mark = (body: Record<string, unknown>, key = freshKey()) => bench.call('POST', `/releases/${id}/mark-compromised`, { query: confirm, key, body });

      const warnKey = freshKey();
      const warned = await mark({ action: 'warn', bump_security_floor: true }, warnKey);
      expect(warned.status).toBe(200);
      expect(warned.body).toMatchObject({ changed: true, warnings: [], security_floor: { previous: start, current: start + 1 }, release: { state: 'compromised', compromise_action: 'warn', compromised_at: expect.any(String) } });
      const replayed = await mark({ action: 'warn', bump_security_floor: true }, warnKey);
      expect(replayed.body).toEqual(warned.body);
      expect(await floor()).toBe(start + 1);

      const same = await mark({ action: 'warn', bump_security_floor: true });
      expect(same.body).toMatchObject({ changed: false, security_floor: { previous: start + 1, current: start + 1 } });
      expect(same.body.warnings).toEqual([expect.stringMatching(/^already_compromised: /), expect.stringMatching(/^security_floor_not_raised: /)]);

      const forced = await mark({ action: 'force_upgrade' });
      expect(forced.body).toMatchObject({ changed: true, release: { compromise_action: 'force_upgrade', compromised_at: warned.body.release.compromised_at }, security_floor: { current: start + 1 } });

      const lowered = await mark({ action: 'warn', bump_security_floor: true });
      expect(lowered.body).toMatchObject({ changed: false, release: { compromise_action: 'force_upgrade' } });
      expect(lowered.body.warnings[0]).toMatch(/^action_not_lowered: /);
      const loweredDryRun = await bench.call('POST', `/releases/${id}/mark-compromised`, { body: { action: 'warn', bump_security_floor: true } });
      expect(loweredDryRun.body).toMatchObject({ would_change: false, security_floor: { current: start + 1, next: start + 1 } });

      const revoked = await mark({ action: 'revoke', acknowledge_revoke: true, bump_security_floor: true });
      expect(revoked.body).toMatchObject({ changed: true, release: { compromise_action: 'revoke' }, security_floor: { previous: start + 1, current: start + 2 } });
      expect(await floor()).toBe(start + 2);

      const deprecated = await bench.call('POST', `/releases/${id}/deprecate`, { query: confirm, key: freshKey() });
      expect(deprecated.body).toMatchObject({ changed: false, release: { state: 'compromised' }, warnings: [expect.stringMatching(/^already_compromised: /)] });

      expect(await releaseAuditActions(bench, id)).toEqual([
        'release.register',
        'release.mark_compromised',
        'release.mark_compromised',
        'release.mark_compromised',
        'release.mark_compromised',
        'release.mark_compromised',
        'release.deprecate',
      ]);
      const { rows } = await bench.sql.query<{ summary: string }>("SELECT summary FROM license_audit_events WHERE target_id = $1 AND action = 'release.mark_compromised' ORDER BY seq", [id]);
      expect(JSON.parse(rows[0]?.summary as string)).toMatchObject({ action: 'warn', changed: true, from_state: 'registered', security_floor_from: start, security_floor_to: start + 1 });
      const verified = await bench.call('POST', '/audit/verify', { body: {} });
      expect(verified.body.verified).toBe(true);
    });

    it('reports the impact and the actions that would change the release on a dry run without an action', async () => {
      const id = await newRelease();
      await seedReleaseMachines(bench, bench.vendorA, id, 1);
      const current = await floor();
      const fresh = await bench.call('POST', `/releases/${id}/mark-compromised`, { body: { bump_security_floor: true } });
      expect(fresh.body).toEqual({
        ok: true,
        dry_run: true,
        release: expect.objectContaining({ release_id: id, state: 'registered' }),
        action: null,
        would_change: true,
        changing_actions: ['warn', 'force_upgrade', 'revoke'],
        impacted_devices: 1,
        requires_acknowledgement: false,
        security_floor: { current, next: current },
        warnings: [],
      });
      await bench.call('POST', `/releases/${id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'force_upgrade' } });
      const forced = await bench.call('POST', `/releases/${id}/mark-compromised`);
      expect(forced.body).toMatchObject({ action: null, would_change: true, changing_actions: ['revoke'] });
      const forcedWarn = await bench.call('POST', `/releases/${id}/mark-compromised`, { body: { action: 'warn' } });
      expect(forcedWarn.body).toMatchObject({ action: 'warn', would_change: false, changing_actions: ['revoke'] });
    });

    it('compromises a deprecated release and keeps when it was deprecated', async () => {
      const id = await newRelease();
      const deprecated = await bench.call('POST', `/releases/${id}/deprecate`, { query: confirm, key: freshKey() });
      const compromised = await bench.call('POST', `/releases/${id}/mark-compromised`, { query: confirm, key: freshKey(), body: { action: 'force_upgrade' } });
      expect(compromised.body).toMatchObject({ changed: true, release: { state: 'compromised', compromise_action: 'force_upgrade', deprecated_at: deprecated.body.release.deprecated_at } });
    });

    it('refuses malformed mark-compromised bodies with 400, target first', async () => {
      const id = await newRelease();
      for (const body of [[], { action: 'kill' }, { action: 'warn', bump_security_floor: 'yes' }, { action: 'revoke', acknowledge_revoke: 1 }, { action: 'warn', extra: true }]) {
        for (const query of [{}, confirm]) {
          const answer = await bench.call('POST', `/releases/${id}/mark-compromised`, { query, key: freshKey(), body });
          expect(answer.status, JSON.stringify({ body, query })).toBe(400);
          expect(answer.body.error.code).toBe('invalid_request');
        }
      }
      // A confirmation needs an action; a dry run without one reports the impact of any.
      for (const body of [undefined, {}, { bump_security_floor: true }]) {
        const answer = await bench.call('POST', `/releases/${id}/mark-compromised`, { query: confirm, key: freshKey(), ...(body === undefined ? {} : { body }) });
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(answer.body.error.message).toMatch(/action/);
      }
      const oversized = await bench.call('POST', `/releases/${id}/mark-compromised`, { key: freshKey(), rawBody: JSON.stringify({ action: 'warn', pad: 'x'.repeat(5000) }) });
      expect(oversized.status).toBe(413);
      // Deprecate takes no fields, and an array is not an empty object.
      for (const body of [[], { reason: 1 }, 'x']) {
        const answer = await bench.call('POST', `/releases/${id}/deprecate`, { query: confirm, key: freshKey(), body });
        expect(answer.status, JSON.stringify(body)).toBe(400);
      }
      expect((await bench.call('GET', `/releases/${id}`)).body.release.state).toBe('registered');
      // The target comes first: another vendor's release is 404 whatever the body says.
      for (const [path, body] of [['mark-compromised', { action: 'kill' }], ['mark-compromised', []], ['deprecate', { reason: 1 }]] as const) {
        for (const query of [{}, confirm]) {
          const answer = await bench.call('POST', `/releases/${id}/${path}`, { token: bench.vendorB.token, query, key: freshKey(), body });
          expect(answer.status, `${path} ${JSON.stringify({ body, query })}`).toBe(404);
          expect(answer.body.error.code).toBe('not_found');
        }
      }
    });

    it('never lets the security floor go down, whatever the statement', async () => {
      await bench.sql.query('UPDATE license_products SET security_floor = security_floor + 1 WHERE product_id = $1', [bench.vendorB.productId]);
      await expect(bench.sql.query('UPDATE license_products SET security_floor = 0 WHERE product_id = $1', [bench.vendorB.productId])).rejects.toThrow(/never decreases/);
      await expect(bench.sql.query('UPDATE license_products SET security_floor = -1 WHERE product_id = $1', [bench.vendorA.productId])).rejects.toThrow();
    });
  });
}
