/**
 * Policies over a real license server: documents, defaults, warnings, versions, isolation, replays and
 * concurrent PATCHes (on the PostgreSQL server engine).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomId } from '@tollgate/core/crypto';
import { createSqlVendorStore } from '@tollgate/core/license';
import { raceCase } from '@tollgate/core/testing';
import { freshKey, openAdminHarness, type AdminHarness } from './admin-harness';
import { proYearlyPolicyBody } from './admin-license-fixtures';
import { serverEngines } from '../helpers';

for (const engine of serverEngines) {
  describe(`Admin policies [${engine.name}]`, () => {
    let bench: AdminHarness;
    let productA: string;
    let productA2: string;
    const create = (body: unknown, options: { token?: string; key?: string } = {}) => bench.call('POST', '/policies', { body, key: options.key ?? freshKey(), ...(options.token ? { token: options.token } : {}) });
    const full = (changes: Record<string, unknown> = {}) => proYearlyPolicyBody(productA, changes);

    beforeAll(async () => {
      bench = await openAdminHarness(engine);
      productA = bench.vendorA.productId;
      productA2 = randomId();
      await createSqlVendorStore(bench.sql).createProduct({ productId: productA2, vendorId: bench.vendorA.vendorId, name: 'Product A2', createdAt: new Date() });
      for (const id of ['free', 'pro']) {
        expect((await bench.call('POST', '/catalog/tiers', { body: { product_id: productA, id, name: id }, key: freshKey() })).status).toBe(201);
      }
    }, 60_000);
    afterAll(() => bench?.close());

    it('creates version 1 with defaults filled in and an assigned id', async () => {
      const answer = await create({ product_id: productA, name: 'Basic' });
      expect(answer.status).toBe(201);
      expect(answer.body).toEqual({
        ok: true,
        policy: {
          id: expect.stringMatching(/^[0-9a-f]{32}$/),
          product_id: productA,
          name: 'Basic',
          seats: 1,
          validation_interval_seconds: 86_400,
          validation_grace_seconds: 604_800,
          heartbeat_window_seconds: null,
          offline_allowed: false,
          version_scope: null,
          tier: null,
          telemetry: 'off',
          duration_seconds: null,
          expiry_behavior: 'deny',
          fallback_tier: null,
        },
        version: 1,
        warnings: [],
      });
      const read = await bench.call('GET', `/policies/${answer.body.policy.id}`);
      expect(read.body).toEqual({ ok: true, policy: answer.body.policy, version: 1, created_at: expect.any(String), updated_at: expect.any(String), warnings: [] });
    });

    it('keeps an operator-chosen id and refuses it a second time with 409', async () => {
      const id = randomId();
      expect((await create(full({ id }))).body.policy.id).toBe(id);
      const again = await create(full({ id, name: 'Again' }));
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('policy_exists');
    });

    it('answers risky but legal settings with warnings', async () => {
      const answer = await create(full({ validation_grace_seconds: 40 * 86_400, offline_allowed: true, seats: 500, heartbeat_window_seconds: 600, fallback_tier: 'pro' }));
      expect(answer.status).toBe(201);
      expect(answer.body.warnings.map((warning: string) => warning.split(':')[0])).toEqual(['long_grace', 'heartbeat_shorter_than_validation', 'offline_many_seats', 'fallback_same_as_tier']);
      for (const warning of answer.body.warnings) expect(warning).toMatch(/^[a-z_]+: .{20,}/);
    });

    it('refuses bad documents with 400 invalid_request naming the field', async () => {
      for (const [body, field] of [
        [undefined, 'body'],
        [full({ seats: 0 }), 'seats'],
        [full({ seats: 10_001 }), 'seats'],
        [full({ validation_interval_seconds: 30 }), 'validation_interval_seconds'],
        [full({ heartbeat_window_seconds: 90_000 }), 'heartbeat_window_seconds'],
        [full({ telemetry: 'full' }), 'telemetry'],
        [full({ duration_seconds: 60 }), 'duration_seconds'],
        [full({ unknown_field: 1 }), 'unknown_field'],
        [full({ fallback_tier: null }), 'fallback_tier'],
        [full({ expiry_behavior: 'deny' }), 'fallback_tier'],
        [full({ version_scope: { min: '3.0.0', max_exclusive: '2.0.0' } }), 'version_scope'],
        [full({ version_scope: { min: 'latest' } }), 'version_scope.min'],
        [full({ id: 'not-hex' }), 'id'],
        [{ name: 'No product' }, 'product_id'],
      ] as const) {
        const answer = await create(body);
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(answer.body.error.code).toBe('invalid_request');
        expect(answer.body.error.message).toContain(field);
      }
    });

    it('refuses tiers outside the product catalog with 422 and another product with 404', async () => {
      for (const body of [full({ tier: 'gold' }), full({ fallback_tier: 'gold' }), full({ product_id: productA2 })]) {
        const answer = await create(body);
        expect(answer.status, JSON.stringify(body)).toBe(422);
        expect(answer.body.error.code).toBe('invalid_entitlement');
      }
      expect((await create(full({ product_id: randomId() }))).status).toBe(404);
      expect((await create(full({ product_id: bench.vendorB.productId }))).status).toBe(404);
    });

    it('stores each PATCH as the next version and serves old versions', async () => {
      const created = (await create(full())).body.policy;
      const patched = await bench.call('PATCH', `/policies/${created.id}`, { body: { ...created, seats: 10, name: 'Pro yearly v2' }, key: freshKey() });
      expect(patched.status).toBe(200);
      expect(patched.body).toEqual({ ok: true, policy: { ...created, seats: 10, name: 'Pro yearly v2' }, version: 2, warnings: [] });
      const current = await bench.call('GET', `/policies/${created.id}`);
      expect(current.body).toMatchObject({ policy: { seats: 10 }, version: 2 });
      const first = await bench.call('GET', `/policies/${created.id}`, { query: { version: '1' } });
      expect(first.body).toEqual({ ok: true, policy: created, version: 1, created_at: expect.any(String), actor: expect.stringMatching(/^[0-9a-f]{32}$/), warnings: [] });
      expect((await bench.call('GET', `/policies/${created.id}`, { query: { version: '3' } })).status).toBe(404);
      expect((await bench.call('GET', `/policies/${created.id}`, { query: { version: 'one' } })).status).toBe(400);
      const versions = await bench.call('GET', `/policies/${created.id}/versions`, { query: { limit: '1' } });
      expect(versions.body.versions.map((row: { version: number }) => row.version)).toEqual([2]);
      const older = await bench.call('GET', `/policies/${created.id}/versions`, { query: { limit: '1', cursor: versions.body.next_cursor } });
      expect(older.body).toMatchObject({ versions: [{ version: 1, policy: created }], next_cursor: null });
    });

    it('refuses a PATCH whose id, product or completeness is wrong', async () => {
      const created = (await create(full())).body.policy;
      const { seats: _seats, ...partial } = created;
      for (const [body, code, status] of [
        [{ ...created, id: randomId() }, 'invalid_request', 400],
        [{ ...created, product_id: productA2 }, 'invalid_request', 400],
        [partial, 'invalid_request', 400],
        [{ ...created, tier: 'gold' }, 'invalid_entitlement', 422],
      ] as const) {
        const answer = await bench.call('PATCH', `/policies/${created.id}`, { body, key: freshKey() });
        expect(answer.status, JSON.stringify(body)).toBe(status);
        expect(answer.body.error.code).toBe(code);
      }
      expect((await bench.call('GET', `/policies/${created.id}`)).body.version).toBe(1);
      expect((await bench.call('PATCH', `/policies/${randomId()}`, { body: created, key: freshKey() })).status).toBe(404);
      expect((await bench.call('GET', '/policies/not-an-id')).status).toBe(404);
    });

    it('lists policies newest first, filtered by product', async () => {
      const inA2 = (await create(full({ product_id: productA2, tier: null, expiry_behavior: 'deny', fallback_tier: null }))).body.policy;
      const all = await bench.call('GET', '/policies', { query: { limit: '200' } });
      expect(all.body.policies[0]).toMatchObject({ policy: inA2, version: 1 });
      const onlyA2 = await bench.call('GET', '/policies', { query: { product_id: productA2 } });
      expect(onlyA2.body.policies.map((row: { policy: { id: string } }) => row.policy.id)).toEqual([inA2.id]);
      expect((await bench.call('GET', '/policies', { query: { product_id: randomId() } })).status).toBe(404);
      expect((await bench.call('GET', '/policies', { query: { product_id: 'nope' } })).status).toBe(400);
    });

    it('isolates vendors: B gets 404 for A’s policies and never lists them', async () => {
      const created = (await create(full())).body.policy;
      const tokenB = bench.vendorB.token;
      for (const [method, path] of [
        ['GET', `/policies/${created.id}`],
        ['GET', `/policies/${created.id}/versions`],
        ['PATCH', `/policies/${created.id}`],
      ] as const) {
        for (const body of method === 'PATCH' ? [{}, created, { ...created, product_id: bench.vendorB.productId, tier: null, expiry_behavior: 'deny', fallback_tier: null }] : [undefined]) {
          const answer = await bench.call(method, path, { token: tokenB, body, key: freshKey() });
          expect(answer.status, `${method} ${path}`).toBe(404);
          expect(answer.body.error.code).toBe('not_found');
        }
      }
      const listB = await bench.call('GET', '/policies', { token: tokenB, query: { limit: '200' } });
      expect(listB.body.policies).toEqual([]);
      expect((await bench.call('GET', '/policies', { token: tokenB, query: { product_id: productA } })).status).toBe(404);
      // Policy ids are global: B cannot take A's id (409, with nothing of A's policy), and A's policy is untouched.
      const taken = await create({ id: created.id, product_id: bench.vendorB.productId, name: 'B' }, { token: tokenB });
      expect(taken.status).toBe(409);
      expect(taken.text).not.toContain(productA);
      expect((await bench.call('GET', `/policies/${created.id}`)).body).toMatchObject({ version: 1, policy: { name: created.name } });
    });

    it('replays a keyed create verbatim, assigned id included', async () => {
      const key = freshKey();
      const first = await create({ product_id: productA, name: 'Replay me' }, { key });
      const replay = await create({ name: 'Replay me', product_id: productA }, { key });
      expect(first.status).toBe(201);
      expect(replay.text).toBe(first.text);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      const listed = await bench.call('GET', '/policies', { query: { limit: '200' } });
      expect(listed.body.policies.filter((row: { policy: { name: string } }) => row.policy.name === 'Replay me')).toHaveLength(1);
      expect((await create({ product_id: productA, name: 'Replay me too' }, { key })).status).toBe(409);
    });

    it('audits create and update with versions', async () => {
      const created = (await create(full())).body.policy;
      await bench.call('PATCH', `/policies/${created.id}`, { body: { ...created, seats: 4 }, key: freshKey() });
      const events = await bench.call('GET', '/audit', { query: { target_type: 'policy', target_id: created.id } });
      expect(events.body.events.map((event: { action: string; summary: { version: number } }) => [event.action, event.summary.version])).toEqual([
        ['policy.update', 2],
        ['policy.create', 1],
      ]);
    });

    raceCase('gives 10 concurrent PATCHes 10 distinct versions', () => ({ engine: engine.name }), async () => {
      const created = (await create(full())).body.policy;
      const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => bench.call('PATCH', `/policies/${created.id}`, { body: { ...created, seats: 100 + index }, key: freshKey() })));
      expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 10 }, () => 200));
      expect(answers.map((answer) => answer.body.version).sort((a: number, b: number) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      const versions = await bench.call('GET', `/policies/${created.id}/versions`, { query: { limit: '200' } });
      expect(versions.body.versions.map((row: { version: number }) => row.version)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
      const latest = answers.find((answer) => answer.body.version === 11);
      expect((await bench.call('GET', `/policies/${created.id}`)).body.policy).toEqual(latest?.body.policy);
    });
  });
}
