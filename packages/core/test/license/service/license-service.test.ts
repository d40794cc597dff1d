/**
 * The license service's composition root through its public interface: `createLicenseService` over a
 * PGlite database, its `fetch` answering the health and keyset routes, a real client SDK activating
 * through it on a local `node:http` server, and the workers starting and stopping.
 */
import { createServer, type Server } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootstrapVendor, createLicenseService, hexEncode, ManualClock, type LicenseService } from '@tollgate/core';
import { licenseProtocolHeader, licenseProtocolVersion, policyDefaults } from '@tollgate/core/license';
import { nodeLicenseCrypto } from '@tollgate/core/node';
import type { TestDatabase } from '@tollgate/core/testing';
import { createLicenseClient, createMemoryStorage } from '@tollgate/client-sdk';
import { vectorEpochs, vectorNow, vectorPins } from '../../vectors/license-fixtures';
import { openLicenseTestDatabase, storeFixtureEpoch, testMasterKey } from '../license-test-database';

const eventually = { timeout: 20_000, interval: 20 };
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** Serves a fetch handler on a loopback `node:http` server; resolves with its URL. */
async function serveFetch(handler: (request: Request) => Promise<Response>): Promise<{ url: string; server: Server }> {
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) if (typeof value === 'string') headers.set(name, value);
      const hasBody = incoming.method !== 'GET' && incoming.method !== 'HEAD';
      const request = new Request(`http://${incoming.headers.host}${incoming.url}`, { method: incoming.method, headers, ...(hasBody ? { body: Buffer.concat(chunks) } : {}) });
      handler(request).then(
        (response) => {
          outgoing.writeHead(response.status, Object.fromEntries(response.headers));
          if (response.body === null) outgoing.end();
          else Readable.fromWeb(response.body as never).pipe(outgoing);
        },
        () => {
          outgoing.writeHead(500).end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, server };
}

describe('createLicenseService', () => {
  let database: TestDatabase;
  let service: LicenseService;
  const clock = new ManualClock(vectorNow * 1000);

  beforeAll(async () => {
    database = await openLicenseTestDatabase({ name: 'pglite' });
    await storeFixtureEpoch(database.sql, vectorEpochs.global);
    service = createLicenseService({ sql: database.sql, clock, masterKey: testMasterKey, pinnedRoots: vectorPins, logger: silent, crypto: nodeLicenseCrypto });
    await service.trust.firstBuild();
  });

  afterAll(async () => {
    await service?.close();
    await database?.close();
  });

  it('answers /health and the keyset through fetch', async () => {
    const health = await service.fetch(new Request('http://license.test/health'));
    expect(health.status).toBe(200);
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(await health.json()).toMatchObject({ ok: true, service: 'tollgate-license' });

    const keys = await service.fetch(new Request('http://license.test/v1/keys', { headers: { [licenseProtocolHeader]: String(licenseProtocolVersion) } }));
    expect(keys.status).toBe(200);
    expect(keys.headers.get('content-type')).toBe('application/cbor');
    expect(keys.headers.get('cache-control')).toBe('public, max-age=300');
    expect(new Uint8Array(await keys.arrayBuffer())).toEqual(service.trust.keyset()?.bytes);

    // Without X-LS-Proto the client table refuses with 426 before routing; the Admin table answers JSON.
    expect((await service.fetch(new Request('http://license.test/v1/keys'))).status).toBe(426);
    const admin = await service.fetch(new Request('http://license.test/v1/admin/licenses'));
    expect(admin.status).toBe(401);
    expect(admin.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('activates a real client SDK against fetch served over node:http', async () => {
    const vendor = await bootstrapVendor(service.adminProvisioning, { vendor: 'Vendor A', product: 'Product A' });
    const policyId = crypto.randomUUID().replace(/-/g, '');
    const document = { ...policyDefaults, id: policyId, product_id: vendor.productId, name: 'Standard', seats: 3, offline_allowed: true };
    await database.sql.query('INSERT INTO license_policies (policy_id, vendor_id, product_id, version, document, created_at, updated_at) VALUES ($1, $2, $3, 1, $4, now(), now())', [
      policyId,
      vendor.vendorId,
      vendor.productId,
      JSON.stringify(document),
    ]);
    const { url, server } = await serveFetch((request) => service.fetch(request));
    try {
      const issued = await fetch(`${url}/v1/admin/licenses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${vendor.token}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: JSON.stringify({ policy_id: policyId, count: 1 }),
      });
      expect(issued.status).toBe(201);
      const [license] = ((await issued.json()) as { licenses: { key: string }[] }).licenses;
      const client = createLicenseClient({
        baseUrl: url,
        productId: vendor.productId,
        pinnedRoots: vectorPins.map((root) => hexEncode(root)),
        storage: createMemoryStorage(),
        fingerprint: crypto.getRandomValues(new Uint8Array(32)),
        clientInfo: { appVersion: '1.0.0', sdkVersion: '0.1.0', os: 'linux', arch: 'x64' },
        clock,
        scheduler: { after: () => () => undefined },
        random: () => 0.5,
      });
      expect(await client.activate({ licenseKey: (license as { key: string }).key })).toBe('active');
      const { rows } = await database.sql.query<{ count: string | number }>("SELECT count(*) AS count FROM license_machines WHERE status = 'active'");
      expect(Number(rows[0]?.count)).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('starts and stops its workers; close() is idempotent', async () => {
    expect(service.workers.running).toBe(false);
    await service.workers.start();
    expect(service.workers.running).toBe(true);
    await service.workers.start();
    // The seat reclaim round runs on the started job (nothing is silent yet).
    await vi.waitFor(async () => expect(await service.seatReclaim.runOnce()).toEqual([]), eventually);
    await service.workers.stop();
    expect(service.workers.running).toBe(false);
    await service.workers.start();
    const first = service.close();
    const second = service.close();
    expect(second).toBe(first);
    await first;
    expect(service.workers.running).toBe(false);
    await expect(service.workers.start()).rejects.toThrow(/closed/);
  });
});
