// Embeds the Tollgate license service in an existing Hono app, under /license, next to the app's own
// routes: one database, `createLicenseService`, `workers.start()`. Then a desktop app's view: a vendor
// issues a license through the Admin API, and the client SDK activates and validates against it.
//
//   npm run example -- embed-license-service-hono
//
// Self-contained: an embedded PGlite database and a local dev trust (a root key and a signing epoch it
// certifies, what `tollgate-license` does on `npm start`) in a temp dir, removed at the end. In
// production: your PostgreSQL (`@tollgate/core/pg`), the master key from your secret store, and the root's
// public key from the offline key ceremony (`npx tollgate-license help`).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { bootstrapVendor, coreMigrations, createLicenseService, hexEncode, licenseMigrations, runMigrations, systemClock } from '@tollgate/core';
import { nodeLicenseCrypto, nodeLicenseNetwork } from '@tollgate/core/node';
import { createPgliteClient } from '@tollgate/core/pglite';
import { createAdminClient } from '@tollgate/admin-client';
import { createLicenseClient, createMemoryStorage } from '@tollgate/client-sdk';
import { ensureDevTrust } from '@tollgate/license-server';

const quiet = { debug: () => undefined, info: () => undefined, warn: console.warn, error: console.error };

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-embed-license-'));
  const sql = await createPgliteClient({ dataDir: join(dir, 'db') });
  const closers: (() => Promise<unknown> | void)[] = [() => sql.close(), () => rmSync(dir, { recursive: true, force: true })];
  try {
    for (const migrations of [coreMigrations, licenseMigrations]) await runMigrations(sql, migrations);
    const masterKey = crypto.getRandomValues(new Uint8Array(32)); // In production: a kept 32-byte secret.
    const trust = await ensureDevTrust({ dataDir: dir }, sql, { masterKey, clock: systemClock });

    const service = createLicenseService({
      sql,
      clock: systemClock,
      masterKey,
      pinnedRoots: [trust.rootPublicKey],
      logger: quiet,
      crypto: nodeLicenseCrypto, // Node's Ed25519 (OpenSSL); the default is the portable noble one.
      network: nodeLicenseNetwork, // How suspicion alerts and subscription webhooks go out.
    });
    await service.trust.firstBuild();
    await service.workers.start();
    closers.unshift(() => service.close());

    // The existing app, with a route of its own; the license service goes under /license.
    const app = new Hono();
    app.get('/hello', (context) => context.json({ hello: 'world' }));
    app.mount('/license', service.fetch);
    const url = await new Promise<string>((resolve) => {
      const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(`http://127.0.0.1:${info.port}`));
      closers.unshift(() => new Promise((done) => server.close(done)));
    });
    const baseUrl = `${url}/license`;
    console.log(`app on ${url}: /hello is the app's, /license/* the license service's`);

    // The vendor: a first Admin token (the CLI's `bootstrap` does the same), a policy, one license.
    const vendor = await bootstrapVendor(service.adminProvisioning, { vendor: 'Acme', product: 'Acme Desktop' });
    const admin = createAdminClient({ baseUrl, token: vendor.token });
    const { policy } = await admin.policies.create({ product_id: vendor.productId, name: 'Standard', seats: 2 });
    const [license] = await admin.licenses.issue({ policyId: policy.id });
    console.log(`license issued: ${license!.key_hint}`);

    // The desktop app: the client SDK pins the root and talks CBOR to /license/v1/….
    const client = createLicenseClient({
      baseUrl,
      productId: vendor.productId,
      pinnedRoots: [hexEncode(trust.rootPublicKey)],
      storage: createMemoryStorage(), // On a desktop: createFileStorage from '@tollgate/client-sdk/node'.
      fingerprint: crypto.getRandomValues(new Uint8Array(32)),
      clientInfo: { appVersion: '1.0.0', sdkVersion: '0.1.0', os: 'linux', arch: 'x64' },
    });
    const activated = await client.activate({ licenseKey: license!.key });
    if (activated !== 'active') throw new Error(`activation ended ${activated}`);
    const validated = await client.validateNow();
    if (validated !== 'active') throw new Error(`validation ended ${validated}`);
    console.log(`client activated and validated: ${validated}`);
    await client.stop();
    console.log(`the app's own route still answers: ${JSON.stringify(await (await fetch(`${url}/hello`)).json())}`);
  } finally {
    for (const close of closers) await close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
