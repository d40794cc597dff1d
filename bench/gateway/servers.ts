/**
 * The servers the gateway benchmark measures, in one child process so they share one CPU budget and the
 * load generator (the parent) does not compete with them inside one event loop:
 *   - `bare`: an Express route answering JSON (the ceiling);
 *   - `official`: the official `@x402/express` `paymentMiddleware` protecting an equivalent route;
 *   - `ours`: the Tollgate gateway's `/receive/:payTo?ref=…` for a fixed ref, on embedded PGlite;
 *   - `ours-pg`: the same on a PostgreSQL server, when `BENCH_DATABASE_URL` names one (its database is
 *     used as is: give the bench a database of its own).
 * Each payment stack settles through its own facilitator on the same anvil chain: ours through the dev
 * stack's self-hosted facilitator (official packages with our signer adapter), the official stack through
 * a facilitator written as the x402 documentation shows (`official-facilitator.ts`).
 * Prints one JSON line with the URLs, then serves until stdin closes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware } from '@x402/express';
import express from 'express';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { hexEncode } from '@tollgate/core';
import { loadGatewayConfig, startGatewayServer } from '@tollgate/gateway-server';
import { startDevStack } from '@tollgate/gateway-server/devchain';
import { startOfficialFacilitator } from './official-facilitator';

const amount = '10000';

function listen(app: express.Express): Promise<{ url: string; close: () => Promise<void> }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => new Promise((done) => server.close(() => done())) });
    });
    server.keepAliveTimeout = 60_000;
  });
}

async function json(url: string, init: RequestInit): Promise<Record<string, unknown>> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url} → ${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** Registers a merchant on `local` through the public API and creates one fixed ref. */
async function payableRef(gatewayUrl: string): Promise<{ payTo: string; path: string }> {
  const merchant = privateKeyToAccount(generatePrivateKey());
  const challenge = await json(`${gatewayUrl}/merchant/challenge`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ payTo: merchant.address, network: 'local', action: 'merchant.register' }),
  });
  const registered = await json(`${gatewayUrl}/merchant/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      challengeId: challenge['challengeId'],
      payTo: merchant.address,
      network: 'local',
      label: 'Bench shop',
      signature: await merchant.signMessage({ message: challenge['signingMessage'] as string }),
    }),
  });
  const ref = await json(`${gatewayUrl}/ref`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${registered['apiKey'] as string}` },
    body: JSON.stringify({ payTo: merchant.address, network: 'local', amount }),
  });
  const resource = new URL((ref['snapshot'] as { resource: string }).resource);
  return { payTo: merchant.address, path: `${resource.pathname}${resource.search}` };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-'));
  const stack = await startDevStack({ dataDir: join(dataDir, 'devchain') });

  const bare = express();
  bare.disable('x-powered-by');
  bare.get('/bare', (_req, res) => {
    res.json({ ok: true });
  });
  const bareServer = await listen(bare);

  const officialPayTo = privateKeyToAccount(generatePrivateKey()).address;
  const officialFacilitator = await startOfficialFacilitator(stack.rpcUrl, stack.chainId);
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: officialFacilitator.url })).register(stack.network, new ExactEvmScheme());
  const official = express();
  official.disable('x-powered-by');
  official.use(
    paymentMiddleware(
      {
        'GET /paid': {
          accepts: {
            scheme: 'exact',
            network: stack.network,
            payTo: officialPayTo,
            price: { asset: stack.usdc.address, amount, extra: { name: stack.usdc.domain.name, version: stack.usdc.domain.version } },
            maxTimeoutSeconds: 300,
          },
          description: 'Bench resource',
          mimeType: 'application/json',
        },
      },
      resourceServer,
    ),
  );
  official.get('/paid', (_req, res) => {
    res.json({ ok: true });
  });
  const officialServer = await listen(official);

  // Our gateway as an operator runs it: PGlite (or a PostgreSQL server), our facilitator, warnings-only
  // logs (the official middleware and the bare route log nothing).
  const startOurs = (name: string, databaseUrl: string | undefined) =>
    startGatewayServer(
      loadGatewayConfig({
        GATEWAY_PORT: '0',
        TOLLGATE_DATA_DIR: join(dataDir, name),
        LOG_LEVEL: 'warn',
        GATEWAY_SECRET: hexEncode(crypto.getRandomValues(new Uint8Array(32))),
        GATEWAY_SIGNING_KEY: generatePrivateKey(),
        GATEWAY_FACILITATOR_URL: stack.facilitatorUrl,
        GATEWAY_RPC_URLS: `local=${stack.rpcUrl}`,
        GATEWAY_LOCAL_USDC: stack.usdc.address,
        GATEWAY_DEV_CHAIN: '0',
        GATEWAY_NOTIFY_ENABLED: 'false',
        GATEWAY_RATE_LIMIT_CHALLENGE: '1000/60',
        GATEWAY_RATE_LIMIT_REGISTER: '1000/60',
        // The load generator is one client sending thousands of requests a second: never limit it.
        GATEWAY_RATE_LIMIT_RECEIVE: '1000000/1',
        ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }),
      }),
      // Log lines go to stderr: stdout carries only the JSON line the parent reads.
      { logDestination: process.stderr },
    );
  const gateway = await startOurs('gateway', undefined);
  const ref = await payableRef(gateway.url);
  const postgresUrl = process.env['BENCH_DATABASE_URL'];
  const gatewayPg = postgresUrl === undefined ? undefined : await startOurs('gateway-pg', postgresUrl);
  const refPg = gatewayPg === undefined ? undefined : await payableRef(gatewayPg.url);

  process.stdout.write(
    `${JSON.stringify({
      bare: `${bareServer.url}/bare`,
      official: `${officialServer.url}/paid`,
      ours: `${gateway.url}${ref.path}`,
      ...(gatewayPg && refPg ? { 'ours-pg': `${gatewayPg.url}${refPg.path}` } : {}),
      network: stack.network,
      usdc: stack.usdc.address,
      payerKey: stack.payer.privateKey,
    })}\n`,
  );

  process.stdin.resume();
  process.stdin.on('end', async () => {
    await Promise.all([bareServer.close(), officialServer.close(), gateway.close(), gatewayPg?.close(), officialFacilitator.close()]);
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench servers failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
