/**
 * The servers the gateway benchmark measures, in one child process so they share one CPU budget and the
 * load generator (the parent) does not compete with them inside one event loop:
 *   - `bare`: an Express route answering JSON (the ceiling);
 *   - `official`: the official `@x402/express` `paymentMiddleware` protecting an equivalent route;
 *   - `ours`: the Tollgate gateway's `/receive/:payTo?ref=…` for a fixed ref, on embedded PGlite;
 *   - `ours-pg`: the same on a PostgreSQL server, when `BENCH_DATABASE_URL` names one.
 * The chain and both facilitators run in another process (`facilitators.ts`, its targets in
 * `BENCH_FACILITATORS`), as a facilitator is another service in every deployment. Every payment stack
 * is served once per facilitator (`official@doc-fac`, `official@ours-fac`, `ours@ours-fac`,
 * `ours@doc-fac`, …), each instance with its own payTo and ref, so a stack's two rows differ only in the
 * facilitator. Each facilitator sends from its own account, so they never compete for a nonce; one payer
 * signs for every stack (EIP-3009 nonces are random). The two PostgreSQL instances share the bench's
 * database, as instances behind one load balancer do (each has its own merchant and ref).
 * Prints one JSON line ({@link BenchTargets}), then serves until stdin closes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { paymentMiddleware } from '@x402/express';
import express from 'express';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { hexEncode } from '@tollgate/core';
import { loadGatewayConfig, startGatewayServer } from '@tollgate/gateway-server';
import type { FacilitatorTargets } from './facilitators';
import { amount, listen, payableRef, serveUntilStdinCloses } from './server-helpers';

/** What the servers process prints: URLs by case name, and what the paying client needs. */
export interface BenchTargets {
  /** Unpaid GET targets: `bare`, `official`, `ours` and, with a PostgreSQL server, `ours-pg`. */
  negotiation: Record<string, string>;
  /** Paid targets named `<stack>@<facilitator>`, for example `ours-pg@doc-fac`. */
  paid: Record<string, string>;
  network: `${string}:${string}`;
  usdc: string;
  payerKey: `0x${string}`;
}

/** The official `paymentMiddleware` on `GET /paid`, settling through `facilitatorUrl`, paying a fresh payTo. */
async function startOfficialStack(stack: FacilitatorTargets, facilitatorUrl: string) {
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitatorUrl })).register(stack.network, new ExactEvmScheme());
  const app = express();
  app.disable('x-powered-by');
  app.use(
    paymentMiddleware(
      {
        'GET /paid': {
          accepts: {
            scheme: 'exact',
            network: stack.network,
            payTo: privateKeyToAccount(generatePrivateKey()).address,
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
  app.get('/paid', (_req, res) => {
    res.json({ ok: true });
  });
  const server = await listen(app);
  return { url: `${server.url}/paid`, close: server.close };
}

/**
 * Our gateway as an operator runs it: PGlite (or a PostgreSQL server), `facilitatorUrl`, warnings-only
 * logs (the official middleware and the bare route log nothing), with one merchant and ref of its own.
 */
async function startOurStack(stack: FacilitatorTargets, options: { dataDir: string; facilitatorUrl: string; databaseUrl: string | undefined; confirmTransfers: boolean }) {
  const gateway = await startGatewayServer(
    loadGatewayConfig({
      GATEWAY_PORT: '0',
      TOLLGATE_DATA_DIR: options.dataDir,
      LOG_LEVEL: 'warn',
      GATEWAY_SECRET: hexEncode(crypto.getRandomValues(new Uint8Array(32))),
      GATEWAY_SIGNING_KEY: generatePrivateKey(),
      GATEWAY_FACILITATOR_URL: options.facilitatorUrl,
      GATEWAY_RPC_URLS: `local=${stack.rpcUrl}`,
      GATEWAY_LOCAL_USDC: stack.usdc.address,
      GATEWAY_DEV_CHAIN: '0',
      GATEWAY_NOTIFY_ENABLED: 'false',
      GATEWAY_CONFIRM_TRANSFERS: String(options.confirmTransfers),
      GATEWAY_RATE_LIMIT_CHALLENGE: '1000/60',
      GATEWAY_RATE_LIMIT_REGISTER: '1000/60',
      // The load generator is one client sending thousands of requests a second: never limit it.
      GATEWAY_RATE_LIMIT_RECEIVE: '1000000/1',
      ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl }),
    }),
    // Log lines go to stderr: stdout carries only the JSON line the parent reads.
    { logDestination: process.stderr },
  );
  return { url: await payableRef(gateway.url), close: () => gateway.close() };
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-'));
  const stack = JSON.parse(process.env['BENCH_FACILITATORS'] ?? 'null') as FacilitatorTargets | null;
  if (stack === null) throw new Error('BENCH_FACILITATORS must hold the facilitators process\'s targets.');
  const { facilitators } = stack;

  const bare = express();
  bare.disable('x-powered-by');
  bare.get('/bare', (_req, res) => {
    res.json({ ok: true });
  });
  const bareServer = await listen(bare);

  const postgresUrl = process.env['BENCH_DATABASE_URL'];
  const running: Record<string, { url: string; close: () => Promise<void> }> = {};
  // Each stack first through its own facilitator (the historical pairing), then through the other one.
  // `ours-trust` is our gateway with GATEWAY_CONFIRM_TRANSFERS=false (receipts on the facilitator's word):
  // beside `ours` on the same facilitator it prices the on-chain confirmation.
  const stacks = postgresUrl === undefined ? ['official', 'ours', 'ours-trust'] : ['official', 'ours', 'ours-trust', 'ours-pg'];
  for (const stackName of stacks) {
    const pairings = stackName === 'official' ? (['doc-fac', 'ours-fac'] as const) : stackName === 'ours-trust' ? (['ours-fac'] as const) : (['ours-fac', 'doc-fac'] as const);
    for (const facilitator of pairings) {
      const facilitatorUrl = facilitators[facilitator];
      const databaseUrl = stackName === 'ours-pg' ? postgresUrl : undefined;
      running[`${stackName}@${facilitator}`] =
        stackName === 'official'
          ? await startOfficialStack(stack, facilitatorUrl)
          : await startOurStack(stack, { dataDir: join(dataDir, `${stackName}-${facilitator}`), facilitatorUrl, databaseUrl, confirmTransfers: stackName !== 'ours-trust' });
    }
  }
  const url = (name: string) => running[name]?.url;
  const targets: BenchTargets = {
    // Negotiation never reaches a facilitator: each stack is measured once, as it runs by default.
    negotiation: Object.fromEntries(
      Object.entries({ bare: `${bareServer.url}/bare`, official: url('official@doc-fac'), ours: url('ours@ours-fac'), 'ours-pg': url('ours-pg@ours-fac') }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    ),
    paid: Object.fromEntries(Object.entries(running).map(([name, server]) => [name, server.url])),
    network: stack.network,
    usdc: stack.usdc.address,
    payerKey: stack.payerKey,
  };
  serveUntilStdinCloses(targets, async () => {
    await Promise.all([bareServer.close(), ...Object.values(running).map((server) => server.close())]);
    rmSync(dataDir, { recursive: true, force: true });
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench servers failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
