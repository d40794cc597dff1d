/**
 * The servers the evidence benchmark (`gateway-evidence.bench.ts`) measures, in one child process so the
 * load generator does not share their event loop (the layout of `servers.ts`):
 *   - `bare`: Express answering `{ ok: true }` on `GET /bare` and, after `express.json()` parsed the
 *     body, on `POST /bare` (the ceilings of `/tx/:txHash` and `/verify-receipt`);
 *   - `gateway`: our gateway on embedded PGlite settling through the dev stack's facilitator, with the
 *     evidence routes public and their rate limits raised out of the load generator's way, and one
 *     merchant with one fixed ref (`paidUrl`) the parent pays to get receipts and transaction hashes.
 * The chain and the facilitators run in another process (`facilitators.ts`, its targets in
 * `BENCH_FACILITATORS`). Prints one JSON line ({@link EvidenceTargets}), then serves until stdin closes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { generatePrivateKey } from 'viem/accounts';
import { hexEncode } from '@tollgate/core';
import { loadGatewayConfig, startGatewayServer } from '@tollgate/gateway-server';
import type { FacilitatorTargets } from './facilitators';
import { listen, payableRef, serveUntilStdinCloses } from './server-helpers';

/** What the evidence servers process prints. */
export interface EvidenceTargets {
  /** `GET` and `POST` bare route. */
  bareUrl: string;
  gatewayUrl: string;
  /** The fixed ref to pay (full URL of `/receive/…?ref=…`). */
  paidUrl: string;
  /** The gateway's `GATEWAY_FINALITY_CONFIRMATIONS`. */
  finalityConfirmations: number;
  rpcUrl: string;
  network: `${string}:${string}`;
  usdc: string;
  payerKey: `0x${string}`;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-evidence-'));
  const stack = JSON.parse(process.env['BENCH_FACILITATORS'] ?? 'null') as FacilitatorTargets | null;
  if (stack === null) throw new Error('BENCH_FACILITATORS must hold the facilitators process\'s targets.');
  const finalityConfirmations = Number(process.env['BENCH_FINALITY_CONFIRMATIONS'] ?? 64);

  const bare = express();
  bare.disable('x-powered-by');
  bare.get('/bare', (_req, res) => {
    res.json({ ok: true });
  });
  // The same body parser the gateway uses for JSON bodies, so the POST ceiling parses what the gateway parses.
  bare.post('/bare', express.json({ limit: '64kb' }), (_req, res) => {
    res.json({ ok: true });
  });
  const bareServer = await listen(bare);

  const gateway = await startGatewayServer(
    loadGatewayConfig({
      GATEWAY_PORT: '0',
      TOLLGATE_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      GATEWAY_SECRET: hexEncode(crypto.getRandomValues(new Uint8Array(32))),
      GATEWAY_SIGNING_KEY: generatePrivateKey(),
      GATEWAY_FACILITATOR_URL: stack.facilitators['ours-fac'],
      GATEWAY_RPC_URLS: `local=${stack.rpcUrl}`,
      GATEWAY_LOCAL_USDC: stack.usdc.address,
      GATEWAY_DEV_CHAIN: '0',
      GATEWAY_NOTIFY_ENABLED: 'false',
      GATEWAY_RATE_LIMIT_CHALLENGE: '1000/60',
      GATEWAY_RATE_LIMIT_REGISTER: '1000/60',
      GATEWAY_RATE_LIMIT_RECEIVE: '1000000/1',
      // The load generator is one client sending thousands of requests a second: never limit it.
      GATEWAY_RATE_LIMIT_VERIFY_RECEIPT: '1000000/1',
      GATEWAY_RATE_LIMIT_TX: '1000000/1',
      GATEWAY_FINALITY_CONFIRMATIONS: String(finalityConfirmations),
    }),
    // Log lines go to stderr: stdout carries only the JSON line the parent reads.
    { logDestination: process.stderr },
  );

  const targets: EvidenceTargets = {
    bareUrl: `${bareServer.url}/bare`,
    gatewayUrl: gateway.url,
    paidUrl: await payableRef(gateway.url),
    finalityConfirmations,
    rpcUrl: stack.rpcUrl,
    network: stack.network,
    usdc: stack.usdc.address,
    payerKey: stack.payerKey,
  };
  serveUntilStdinCloses(targets, async () => {
    await Promise.all([bareServer.close(), gateway.close()]);
    rmSync(dataDir, { recursive: true, force: true });
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench evidence servers failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
