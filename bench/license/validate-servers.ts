/**
 * The servers the validate benchmark (`license-validate.bench.ts`) measures, in one child process so the
 * load generator (the parent, which also signs the requests) does not share their event loop:
 *   - `bare`: Express answering a fixed small CBOR body on `POST /bare` after `express.raw()` read the
 *     request body (the ceiling);
 *   - `pglite`: the license server on embedded PGlite (a throwaway data directory);
 *   - `pg`: the license server on a PostgreSQL server, when `BENCH_DATABASE_URL` names one. It uses the
 *     database `tollgate_bench_license` on that server (created when missing; the server migrates it),
 *     and keeps its data directory (dev master key and dev root) in `.tollgate/bench/license-pg`, so the
 *     sealed epoch keys in that database stay readable from one run to the next.
 * Both license servers run with their per-address and per-license budgets raised to 999999 requests per
 * second (`LICENSE_RATE_LIMIT_PER_ADDRESS`, `LICENSE_RATE_LIMIT_PER_LICENSE`): the limiter still counts
 * every request, but never refuses the load generator. Each has a freshly bootstrapped vendor.
 * Prints one JSON line ({@link ValidateTargets}), then serves until stdin closes.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import express from 'express';
import { bootstrapVendor, hexEncode } from '@tollgate/core';
import { encodeCanonical } from '@tollgate/core/cbor';
import { loadLicenseConfig, startLicenseServer, type RunningLicenseServer } from '@tollgate/license-server';

/** One license server under test. */
export interface LicenseTarget {
  url: string;
  /** Vendor admin token (all scopes) of the bootstrapped vendor. */
  token: string;
  productId: string;
  /** The pinned root public keys (hex) the server's keyset verifies against. */
  pinnedRoots: string[];
}

/** What the validate servers process prints. */
export interface ValidateTargets {
  bareUrl: string;
  /** `pglite` and, with a PostgreSQL server, `pg`. */
  servers: Record<string, LicenseTarget>;
}

const benchDatabase = 'tollgate_bench_license';

/** `BENCH_DATABASE_URL` pointed at the bench's own database, created when missing. */
async function benchDatabaseUrl(serverUrl: string): Promise<string> {
  const { default: pg } = await import('pg');
  const admin = new URL(serverUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [benchDatabase]);
    if (rowCount === 0) await client.query(`CREATE DATABASE ${benchDatabase}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${benchDatabase}`;
  return url.toString();
}

async function startLicense(dataDir: string, databaseUrl: string | undefined): Promise<{ server: RunningLicenseServer; target: LicenseTarget }> {
  const server = await startLicenseServer(
    loadLicenseConfig({
      LICENSE_PORT: '0',
      TOLLGATE_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      LICENSE_RATE_LIMIT_PER_ADDRESS: '999999/1',
      LICENSE_RATE_LIMIT_PER_LICENSE: '999999/1',
      ...(databaseUrl === undefined ? {} : { LICENSE_DATABASE_URL: databaseUrl }),
    }),
    // Log lines and the dev-root notice go to stderr: stdout carries only the JSON line the parent reads.
    { logDestination: process.stderr, print: (text) => process.stderr.write(`${text}\n`) },
  );
  const vendor = await bootstrapVendor(server.context.adminProvisioning, { vendor: 'Bench vendor', product: 'Bench product' });
  return { server, target: { url: server.url, token: vendor.token, productId: vendor.productId, pinnedRoots: server.context.pinnedRoots.map((root) => hexEncode(root)) } };
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'tollgate-bench-license-'));
  const answer = encodeCanonical(new Map([[0, true]]));
  const bare = express();
  bare.disable('x-powered-by');
  bare.post('/bare', express.raw({ type: 'application/cbor', limit: '16kb' }), (_req, res) => {
    res.type('application/cbor').send(Buffer.from(answer));
  });
  const bareServer = await new Promise<{ url: string; close: () => Promise<void> }>((done) => {
    const server = bare.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      done({ url: `http://127.0.0.1:${port}`, close: () => new Promise((closed) => server.close(() => closed())) });
    });
    server.keepAliveTimeout = 60_000;
  });

  const running: RunningLicenseServer[] = [];
  const servers: Record<string, LicenseTarget> = {};
  const pglite = await startLicense(scratch, undefined);
  running.push(pglite.server);
  servers['pglite'] = pglite.target;
  const postgresUrl = process.env['BENCH_DATABASE_URL'];
  if (postgresUrl !== undefined && postgresUrl !== '') {
    const dataDir = resolve('.tollgate/bench/license-pg');
    mkdirSync(dataDir, { recursive: true });
    const pg = await startLicense(dataDir, await benchDatabaseUrl(postgresUrl));
    running.push(pg.server);
    servers['pg'] = pg.target;
  }
  const targets: ValidateTargets = { bareUrl: `${bareServer.url}/bare`, servers };
  process.stdout.write(`${JSON.stringify(targets)}\n`);

  process.stdin.resume();
  process.stdin.on('end', async () => {
    await Promise.all([bareServer.close(), ...running.map((server) => server.close())]);
    rmSync(scratch, { recursive: true, force: true });
    process.exit(0);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench license servers failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
